/**
 * Today in one glance: a card per variable with the value, where it falls among the days around this
 * date in every other year, and one plain sentence.
 */
import { inkOn, labelColor } from "../colors.js"
import { formatValue, headline, labelWords, ordinal, VARIABLE_NAME, VARIABLES } from "../format.js"
import type { DayPayload, Grade, GradePayload, Units, Variable } from "../payloads.js"
import { PercentileBar } from "./PercentileBar.js"

export interface HeadlinesProps {
  readonly grade: GradePayload | null
  /** Today's day view: its climatology names the record a record day beat. */
  readonly day: DayPayload | null
  readonly units: Units
  readonly sinceYear: number | null
}

const Card = ({
  variable,
  grade,
  units,
  sinceYear,
  previous
}: {
  variable: Variable
  grade: Grade
  units: Units
  sinceYear: number | null
  previous: { value: number | null; date: string | null } | undefined
}) => {
  const record = grade.label === "record-high" || grade.label === "record-low"
  return (
    <article class={`card grade-card${record ? " is-record" : ""}`} aria-labelledby={`grade-${variable}`}>
      <h3 id={`grade-${variable}`} class="card-title">
        {VARIABLE_NAME[variable]}
      </h3>
      <p class="grade-value">
        <span class="num">{formatValue(grade.value, grade.unit, units)}</span>
        {grade.label !== null && (
          <span class="chip" style={{ background: labelColor(variable, grade.label), color: inkOn(variable, grade.label) }}>
            {labelWords(variable, grade.label)}
          </span>
        )}
      </p>
      {grade.percentile !== null ? (
        <p class="grade-percentile">{ordinal(grade.percentile)} percentile</p>
      ) : (
        <p class="grade-percentile muted">no percentile (n = {grade.n})</p>
      )}
      <PercentileBar variable={variable} percentile={grade.percentile} />
      <p class="grade-sentence">{headline({ variable, grade, units, sinceYear, previous })}</p>
    </article>
  )
}

export const Headlines = ({ grade, day, units, sinceYear }: HeadlinesProps) => {
  if (grade === null) {
    return (
      <p class="notice">
        Today's forecast is not available right now, so today cannot be graded. The calendar and the day view below
        still show the record.
      </p>
    )
  }
  return (
    <div class="grade-cards">
      {VARIABLES.map((variable) => {
        const g = grade.variables[variable]
        const climatology = day?.date === grade.date ? day.variables[variable].climatology : undefined
        const previous =
          climatology === undefined ? undefined : g.label === "record-high" ? climatology.max : g.label === "record-low" ? climatology.min : undefined
        return <Card key={variable} variable={variable} grade={g} units={units} sinceYear={sinceYear} previous={previous} />
      })}
    </div>
  )
}
