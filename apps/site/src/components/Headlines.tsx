/**
 * Today in one glance: a card per variable with the value, where it falls among the days around this
 * date in every other year, and one plain sentence.
 */
import { inkOn, labelColor } from "../colors.js"
import type { SampleBounds } from "@climate-grade/core/grading/Ties"
import { shownLabel } from "@climate-grade/core/grading/Ties"
import { boundsOf, formatValue, headline, labelWords, percentileText, VARIABLE_NAME, VARIABLES } from "../format.js"
import { w } from "../i18n/index.js"
import type { DayPayload, Grade, Units, Variable } from "../payloads.js"
import { PercentileBar } from "./PercentileBar.js"

export interface HeadlinesProps {
  /** The day's three grades (today's from the grade view or the stored forecast); null when none are held. */
  readonly grades: Readonly<Record<Variable, Grade>> | null
  /** The date they describe. */
  readonly date: string
  /** The sentences' subject: "Today's", or the day's date for a stored copy of another day. */
  readonly when: string
  /** The stored day view: when it is of the same date, its climatology names the record a record day beat. */
  readonly day: DayPayload | null
  readonly units: Units
  readonly sinceYear: number | null
}

const Card = ({
  variable,
  grade,
  units,
  sinceYear,
  previous,
  when,
  bounds
}: {
  variable: Variable
  grade: Grade
  units: Units
  sinceYear: number | null
  previous: { value: number | null; date: string | null } | undefined
  when: string
  bounds: SampleBounds | undefined
}) => {
  const record = grade.label === "record-high" || grade.label === "record-low"
  const label = shownLabel(variable, grade, bounds)
  return (
    <article class={`card grade-card${record ? " is-record" : ""}`} aria-labelledby={`grade-${variable}`}>
      <h3 id={`grade-${variable}`} class="card-title">
        {VARIABLE_NAME[variable]}
      </h3>
      <p class="grade-value">
        <span class="num">{formatValue(grade.value, grade.unit, units)}</span>
        {label !== null && (
          <span class="chip" style={{ background: labelColor(variable, label), color: inkOn(variable, label) }}>
            {labelWords(variable, label)}
          </span>
        )}
      </p>
      {grade.percentile !== null ? (
        <p class="grade-percentile">{percentileText(grade.percentile)}</p>
      ) : (
        <p class="grade-percentile muted">{w("percentile.none", { n: grade.n })}</p>
      )}
      <PercentileBar variable={variable} percentile={grade.percentile} />
      <p class="grade-sentence">{headline({ variable, grade, units, sinceYear, previous, when, bounds })}</p>
    </article>
  )
}

export const Headlines = ({ grades, date, when, day, units, sinceYear }: HeadlinesProps) => {
  if (grades === null) {
    return (
      <p class="notice">{w("today.no-forecast")}</p>
    )
  }
  return (
    <div class="grade-cards">
      {VARIABLES.map((variable) => {
        const g = grades[variable]
        const climatology = day?.date === date ? day.variables[variable].climatology : undefined
        const previous =
          climatology === undefined ? undefined : g.label === "record-high" ? climatology.max : g.label === "record-low" ? climatology.min : undefined
        const bounds = boundsOf(day, date)?.[variable]
        return (
          <Card key={variable} variable={variable} grade={g} units={units} sinceYear={sinceYear} previous={previous} when={when} bounds={bounds} />
        )
      })}
    </div>
  )
}
