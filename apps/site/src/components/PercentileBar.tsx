/**
 * A percentile on a 0–100 bar coloured by the grade bands (below 10, 33⅓, 66⅔, 90), with a marker.
 * Drawn in percent units so it stretches to any width without measuring.
 */
import { Percentile } from "@climate-grade/core/rules"
import { labelColor } from "../colors.js"
import { percentileText } from "../format.js"
import { w } from "../i18n/index.js"
import type { Variable } from "../payloads.js"

const BANDS = Percentile.BANDS

export const PercentileBar = ({ variable, percentile }: { variable: Variable; percentile: number | null }) => {
  const name = percentile === null ? w("percentile.no") : percentileText(percentile)
  return (
    // A scale from 0 to 100, read left to right in every language (its marker is placed by `left`).
    <div class="pbar" dir="ltr">
      <svg class="pbar-svg" role="img" aria-label={name} viewBox="0 0 100 14" preserveAspectRatio="none">
        {BANDS.map(([from, to, label]) => (
          <rect key={label} x={from} y={3} width={to - from} height={8} fill={labelColor(variable, label)} />
        ))}
        <rect x={0} y={3} width={100} height={8} fill="none" stroke="#8a8a85" stroke-width={0.3} vector-effect="non-scaling-stroke" />
      </svg>
      {percentile !== null && (
        <span class="pbar-marker" aria-hidden="true" style={{ left: `${percentile}%` }} />
      )}
      <div class="pbar-scale" aria-hidden="true">
        <span>0</span>
        <span>50</span>
        <span>100</span>
      </div>
    </div>
  )
}
