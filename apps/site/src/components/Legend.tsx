/** The colour key shared by the forecast strip and the calendar. */
import { LEGEND, labelColor, NO_DATA } from "../colors.js"
import { labelWords } from "../format.js"
import type { Variable } from "../payloads.js"

export const Legend = ({ variable, records = true }: { variable: Variable; records?: boolean }) => (
  <ul class="legend" aria-label={`Colour key for ${variable === "precip" ? "precipitation" : "temperature"}`}>
    {LEGEND.filter((l) => records || (l !== "record-high" && l !== "record-low")).map((label) => (
      <li key={label}>
        <span class="swatch" aria-hidden="true" style={{ background: labelColor(variable, label) }} />
        {labelWords(variable, label)}
      </li>
    ))}
    <li>
      <span class="swatch" aria-hidden="true" style={{ background: NO_DATA }} />
      no percentile
    </li>
  </ul>
)
