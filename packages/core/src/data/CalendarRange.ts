/**
 * The calendar builder's range clamp, in this order:
 * 1. with no start, start = (end moved back `months` calendar months, day clamped) + 1 day;
 * 2. end defaults to the record's last day;
 * 3. each bound is clamped into the record;
 * 4. a start after the end is swapped with it;
 * 5. a span over 24 months keeps end and moves start to end − 24 months + 1 day.
 */
import * as CivilDate from "../CivilDate.js"

export const MAX_MONTHS = 24
export const DEFAULT_MONTHS = 12

/**
 * Any whole number of months is a valid `months`. Moved back this many from any date of years
 * 0000–9999, a start falls before every record's first day, so every larger count resolves as
 * this one; taking it for them keeps the month arithmetic in range (1e300 months, say).
 */
export const MONTHS_BEFORE_EVERY_RECORD = 12 * 10_001

export interface RangeRequest {
  readonly start?: CivilDate.EpochDay | undefined
  readonly end?: CivilDate.EpochDay | undefined
  readonly months?: number | undefined
}

export interface Range {
  readonly start: CivilDate.EpochDay
  readonly end: CivilDate.EpochDay
}

const clamp = (day: number, lo: number, hi: number) => Math.min(Math.max(day, lo), hi)

export const resolve = (request: RangeRequest, record: Range): Range => {
  const end0 = request.end ?? record.end
  const months = Math.min(request.months ?? DEFAULT_MONTHS, MONTHS_BEFORE_EVERY_RECORD)
  const start0 = request.start ?? CivilDate.addMonths(end0, -months) + 1
  let start = clamp(start0, record.start, record.end)
  let end = clamp(end0, record.start, record.end)
  if (start > end) [start, end] = [end, start]
  const earliest = CivilDate.addMonths(end, -MAX_MONTHS) + 1
  if (start < earliest) start = earliest
  return { start, end }
}
