/**
 * One day against its history: for each variable the day's value on a line from the record low to the
 * record high, over the band where 80% of days fall (p10–p90), the middle half (p25–p75) and the median.
 */
import { tieOf, tieWords } from "@climate-grade/core/grading/Ties"
import { inkOn, labelColor } from "../colors.js"
import { formatNumber, formatValue, labelWords, ordinal, unitSymbol, VARIABLE_NAME, VARIABLES } from "../format.js"
import type { DayGrade, DayPayload, Units, Variable } from "../payloads.js"
import { useWidth } from "./useWidth.js"

const HEIGHT = 92
const TRACK_Y = 38
/** Rough width of a 12px label, enough to tell whether two labels would overlap. */
const textWidth = (text: string) => text.length * 6.8

/** A value's position on the chart: a straight line through two points, which is all the chart needs of a scale. */
const linear =
  ([d0, d1]: readonly [number, number], [r0, r1]: readonly [number, number]) =>
  (v: number): number =>
    r0 + ((v - d0) / (d1 - d0)) * (r1 - r0)

const year = (date: string | null) => (date === null ? "" : ` (${date.slice(0, 4)})`)

const describe = (variable: Variable, g: DayGrade, units: Units): string => {
  const c = g.climatology
  const v = (x: number | null) => formatValue(x, g.unit, units)
  const parts = [
    `${VARIABLE_NAME[variable]} ${v(g.value)}`,
    c.p50 === null ? null : `median ${v(c.p50)}`,
    c.p25 === null || c.p75 === null ? null : `middle half of days between ${v(c.p25)} and ${v(c.p75)}`,
    c.p10 === null || c.p90 === null ? null : `80% of days between ${v(c.p10)} and ${v(c.p90)}`,
    c.min.value === null
      ? null
      : variable === "precip" && c.min.value === 0
        ? "driest days had none"
        : `record low ${v(c.min.value)}${c.min.date === null ? "" : ` in ${c.min.date.slice(0, 4)}`}`,
    c.max.value === null ? null : `record high ${v(c.max.value)}${c.max.date === null ? "" : ` in ${c.max.date.slice(0, 4)}`}`
  ]
  return parts.filter((p) => p !== null).join("; ")
}

const BandChart = ({ variable, grade, units }: { variable: Variable; grade: DayGrade; units: Units }) => {
  const [ref, width] = useWidth<HTMLDivElement>(600)
  const c = grade.climatology
  const values = [c.min.value, c.max.value, c.p10, c.p90, grade.value].filter((x): x is number => x !== null)
  if (values.length === 0) {
    return (
      <div ref={ref} class="band-empty">
        No history for this date.
      </div>
    )
  }
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  const pad = Math.max((hi - lo) * 0.04, 0.5)
  const margin = 12
  const x = linear([variable === "precip" ? Math.max(0, lo - pad) : lo - pad, hi + pad], [margin, Math.max(width - margin, margin + 10)])
  const num = (v: number) => formatNumber(v, grade.unit, units)
  const sym = unitSymbol(grade.unit, units)
  const valueX = grade.value === null ? null : x(grade.value)
  // A dry day is no record: many years had one, so the first year it happened says nothing.
  const lowText =
    c.min.value === null
      ? ""
      : variable === "precip" && c.min.value === 0
        ? `driest ${num(0)} ${sym}`
        : `record low ${num(c.min.value)} ${sym}${year(c.min.date)}`
  const highText = c.max.value === null ? "" : `record high ${num(c.max.value)} ${sym}${year(c.max.date)}`
  // On a narrow screen the two record labels would collide: put them on two lines.
  const stacked =
    c.min.value !== null && c.max.value !== null && x(c.min.value) + textWidth(lowText) + 12 > x(c.max.value) - textWidth(highText)
  const height = stacked ? HEIGHT + 16 : HEIGHT
  // Anchor end labels inside the chart so they never spill over its edges.
  const anchor = (px: number) => (px < width * 0.2 ? "start" : px > width * 0.8 ? "end" : "middle")
  return (
    <div ref={ref} class="band">
      <svg width={width} height={height} role="img" aria-label={describe(variable, grade, units)} class="band-svg" dir="ltr">
        {c.min.value !== null && c.max.value !== null && (
          <g class="band-record">
            <line x1={x(c.min.value)} x2={x(c.max.value)} y1={TRACK_Y} y2={TRACK_Y} stroke="#8a8a85" stroke-width={2} />
            <line x1={x(c.min.value)} x2={x(c.min.value)} y1={TRACK_Y - 7} y2={TRACK_Y + 7} stroke="#5a5a55" stroke-width={2} />
            <line x1={x(c.max.value)} x2={x(c.max.value)} y1={TRACK_Y - 7} y2={TRACK_Y + 7} stroke="#5a5a55" stroke-width={2} />
            <text x={x(c.min.value)} y={HEIGHT - 6} text-anchor="start" class="band-label">
              {lowText}
            </text>
            <text x={x(c.max.value)} y={height - 6} text-anchor="end" class="band-label">
              {highText}
            </text>
          </g>
        )}
        {c.p10 !== null && c.p90 !== null && (
          <rect x={x(c.p10)} y={TRACK_Y - 10} width={Math.max(1, x(c.p90) - x(c.p10))} height={20} fill="#c9d3e3" rx={3} />
        )}
        {c.p25 !== null && c.p75 !== null && (
          <rect x={x(c.p25)} y={TRACK_Y - 10} width={Math.max(1, x(c.p75) - x(c.p25))} height={20} fill="#8fa3c4" rx={3} />
        )}
        {c.p50 !== null && (
          <>
            <line x1={x(c.p50)} x2={x(c.p50)} y1={TRACK_Y - 13} y2={TRACK_Y + 13} stroke="#1f2a44" stroke-width={2.5} />
            <text x={x(c.p50)} y={TRACK_Y + 28} text-anchor={anchor(x(c.p50))} class="band-label">
              median {num(c.p50)}
            </text>
          </>
        )}
        {valueX !== null && (
          <g class="band-value">
            <circle
              cx={valueX}
              cy={TRACK_Y}
              r={8}
              fill={grade.label === null ? "#ffffff" : labelColor(variable, grade.label)}
              stroke="#111"
              stroke-width={2}
            />
            <text x={valueX} y={TRACK_Y - 16} text-anchor={anchor(valueX)} class="band-value-label">
              {num(grade.value!)} {sym}
            </text>
          </g>
        )}
      </svg>
    </div>
  )
}

const SOURCE_WORDS: Record<DayPayload["source"], string> = {
  history: "Values from the ERA5 record.",
  forecast: "Values from the forecast: this day is not in the ERA5 record yet.",
  none: "No values for this day yet: its history alone is shown."
}

export const DayView = ({ day, units }: { day: DayPayload; units: Units }) => (
  <div class="dayview">
    <p class="dayview-source">
      {SOURCE_WORDS[day.source]}
    </p>
    {VARIABLES.map((variable) => {
      const g = day.variables[variable]
      const tie = tieOf(variable, g, { min: g.climatology.min.value, max: g.climatology.max.value })
      return (
        <div key={variable} class="dayview-row">
          <h3 class="dayview-title">
            <span>{VARIABLE_NAME[variable]}</span>{" "}
            <span class="num">{formatValue(g.value, g.unit, units)}</span>
            {g.label !== null && g.percentile !== null ? (
              <>
                {" "}
                <span class="chip" style={{ background: labelColor(variable, g.label), color: inkOn(variable, g.label) }}>
                  {labelWords(variable, g.label)}
                </span>{" "}
                <span class="muted">
                  {ordinal(g.percentile)} percentile{tie === null ? "" : ` · ${tieWords(variable, tie)}`}
                </span>
              </>
            ) : g.value !== null ? (
              <span class="muted"> — no percentile: only {g.n} comparable days</span>
            ) : null}
          </h3>
          <BandChart variable={variable} grade={g} units={units} />
        </div>
      )
    })}
    <div class="band-key" aria-hidden="true">
      <span>
        <span class="key-swatch key-p1090" /> 80% of days (p10–p90)
      </span>
      <span>
        <span class="key-swatch key-p2575" /> middle half (p25–p75)
      </span>
      <span>
        <span class="key-median" /> median
      </span>
      <span>
        <span class="key-dot" /> this day
      </span>
    </div>
  </div>
)
