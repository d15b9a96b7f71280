/**
 * One day against its history: for each variable the day's value on a line from the record low to the
 * record high, over the band where 80% of days fall (p10–p90), the middle half (p25–p75) and the median.
 */
import { tieOf } from "@climate-grade/core/grading/Ties"
import { inkOn, labelColor } from "../colors.js"
import { formatCount, formatNumber, formatValue, labelWords, percentileText, tieWords, unitSymbol, VARIABLE_NAME, VARIABLES } from "../format.js"
import type { DayGrade, DayPayload, Units, Variable } from "../payloads.js"
import { w } from "../i18n/later.js"
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

/** "record low 1.2 °C (1985)", "record high …": a record's label on the chart, its year when known. */
const recordText = (which: "low" | "high", value: string, date: string | null) =>
  date === null ? w(`day.record-${which}`, { value }) : w(`day.record-${which}.year`, { value, year: date.slice(0, 4) })

const describe = (variable: Variable, g: DayGrade, units: Units): string => {
  const c = g.climatology
  const v = (x: number | null) => formatValue(x, g.unit, units)
  const record = (which: "low" | "high", value: number, date: string | null) =>
    date === null ? w(`day.describe.record-${which}`, { value: v(value) }) : w(`day.describe.record-${which}.year`, { value: v(value), year: date.slice(0, 4) })
  const parts = [
    w("day.describe.value", { variable: VARIABLE_NAME[variable], value: v(g.value) }),
    c.p50 === null ? null : w("day.describe.median", { value: v(c.p50) }),
    c.p25 === null || c.p75 === null ? null : w("day.describe.middle", { low: v(c.p25), high: v(c.p75) }),
    c.p10 === null || c.p90 === null ? null : w("day.describe.p1090", { low: v(c.p10), high: v(c.p90) }),
    c.min.value === null
      ? null
      : variable === "precip" && c.min.value === 0
        ? w("day.describe.driest")
        : record("low", c.min.value, c.min.date),
    c.max.value === null ? null : record("high", c.max.value, c.max.date)
  ]
  return parts.filter((p) => p !== null).join(w("day.describe.separator"))
}

const BandChart = ({ variable, grade, units }: { variable: Variable; grade: DayGrade; units: Units }) => {
  const [ref, width] = useWidth<HTMLDivElement>(600)
  const c = grade.climatology
  const values = [c.min.value, c.max.value, c.p10, c.p90, grade.value].filter((x): x is number => x !== null)
  if (values.length === 0) {
    return (
      <div ref={ref} class="band-empty">
        {w("day.no-history")}
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
        ? w("day.driest", { value: `${num(0)} ${sym}` })
        : recordText("low", `${num(c.min.value)} ${sym}`, c.min.date)
  const highText = c.max.value === null ? "" : recordText("high", `${num(c.max.value)} ${sym}`, c.max.date)
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
              {w("day.median", { value: num(c.p50) })}
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


export const DayView = ({ day, units }: { day: DayPayload; units: Units }) => (
  <div class="dayview">
    <p class="dayview-source">
      {w(`day.source.${day.source}`)}
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
                  {percentileText(g.percentile)}
                  {tie === null ? "" : ` · ${tieWords(variable, tie)}`}
                </span>
              </>
            ) : g.value !== null ? (
              <span class="muted"> — {w("day.ungraded", { n: formatCount(g.n) })}</span>
            ) : null}
          </h3>
          <BandChart variable={variable} grade={g} units={units} />
        </div>
      )
    })}
    <div class="band-key" aria-hidden="true">
      <span>
        <span class="key-swatch key-p1090" /> {w("day.key.p1090")}
      </span>
      <span>
        <span class="key-swatch key-p2575" /> {w("day.key.p2575")}
      </span>
      <span>
        <span class="key-median" /> {w("day.key.median")}
      </span>
      <span>
        <span class="key-dot" /> {w("day.key.this")}
      </span>
    </div>
  </div>
)
