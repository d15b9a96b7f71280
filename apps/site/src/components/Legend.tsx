/** The colour key shared by the forecast strip and the calendar. */
import { LEGEND, labelColor, NO_DATA } from "../colors.js"
import { labelWords } from "../format.js"
import { w } from "../i18n/index.js"
import type { Variable } from "../payloads.js"

export const Legend = ({ variable, records = true }: { variable: Variable; records?: boolean }) => (
  <ul class="legend" aria-label={w(variable === "precip" ? "legend.precip" : "legend.temperature")}>
    {LEGEND.filter((l) => records || (l !== "record-high" && l !== "record-low")).map((label) => (
      <li key={label}>
        <span class="swatch" aria-hidden="true" style={{ background: labelColor(variable, label) }} />
        {labelWords(variable, label)}
      </li>
    ))}
    <li>
      <span class="swatch" aria-hidden="true" style={{ background: NO_DATA }} />
      {w("percentile.no")}
    </li>
  </ul>
)
