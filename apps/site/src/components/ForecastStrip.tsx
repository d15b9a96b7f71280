/**
 * The coming days as a percentile strip: one column per day (one row per day on a phone), each value
 * on the colour of its grade, with the date's normal range (10th to 90th percentile) beneath.
 * Choosing a day opens it in the day view.
 */
import { inkOn, labelColor, NO_DATA } from "../colors.js"
import { dayAndMonth, formatNumber, formatPercentile, formatValue, labelWords, VARIABLE_NAME, VARIABLES, weekday } from "../format.js"
import { w } from "../i18n/index.js"
import type { ForecastPayload, Grade, Units, Variable } from "../payloads.js"

type Band = ForecastPayload["days"][number]["normal"]["tmax"]

/** The date's normal range, 10th to 90th percentile ("9–17 °C"); null without one. */
const normalRange = (band: Band | undefined, unit: Grade["unit"], units: Units): string | null =>
  band === undefined || band.p10 === null || band.p90 === null
    ? null
    : `${formatNumber(band.p10, unit, units)}–${formatValue(band.p90, unit, units)}`

const Value = ({ variable, grade, units, normal }: { variable: Variable; grade: Grade; units: Units; normal: Band | undefined }) => {
  const colored = grade.label !== null
  const range = normalRange(normal, grade.unit, units)
  const name =
    `${VARIABLE_NAME[variable]} ${formatValue(grade.value, grade.unit, units)}` +
    (grade.percentile === null || grade.label === null
      ? w("fc.no-percentile")
      : w("fc.percentile", { p: formatPercentile(grade.percentile), label: labelWords(variable, grade.label) })) +
    (range === null ? "" : w("fc.normal", { range }))
  return (
    <span
      class={`fc-value fc-${variable}`}
      title={name}
      style={{
        background: colored ? labelColor(variable, grade.label!) : NO_DATA,
        color: colored ? inkOn(variable, grade.label!) : "#1a1a1a"
      }}
    >
      <span class="sr-only">{name}</span>
      {/* The normal range is drawn from the attribute (styles.css): no element more per value. */}
      <span aria-hidden="true" data-normal={range ?? undefined}>
        <span class="fc-num">{formatValue(grade.value, grade.unit, units)}</span>
        {grade.percentile !== null && <span class="fc-p">p{formatPercentile(grade.percentile)}</span>}
      </span>
    </span>
  )
}

export const ForecastStrip = ({
  forecast,
  units,
  selected,
  today,
  onPick
}: {
  forecast: ForecastPayload
  units: Units
  selected: string | null
  today: string | null
  onPick: (date: string) => void
}) => (
  <div class="forecast">
    <div class="fc-head" aria-hidden="true">
      <span />
      {VARIABLES.map((v) => (
        <span key={v}>{VARIABLE_NAME[v]}</span>
      ))}
    </div>
    <ol class="fc-days">
      {forecast.days.map((day) => (
        <li key={day.date} class={`fc-day${day.date === selected ? " is-selected" : ""}`}>
          <button
            type="button"
            class="fc-date"
            aria-pressed={day.date === selected}
            onClick={() => onPick(day.date)}
          >
            <span class="fc-weekday">{day.date === today ? w("fc.today") : weekday(day.date)}</span>{" "}
            <span class="fc-daynum">{dayAndMonth(day.date)}</span>
          </button>
          {VARIABLES.map((v) => (
            <Value key={v} variable={v} grade={day[v]} units={units} normal={day.normal?.[v]} />
          ))}
        </li>
      ))}
    </ol>
  </div>
)
