/**
 * Percentile rank, labels and quantiles over sorted samples (the rules: docs/api.md "Weather data").
 */

/** Index of the first element >= x in an ascending array, or in its ascending run [from, to) (binary search). */
export const lowerBound = (sorted: ArrayLike<number>, x: number, from = 0, to = sorted.length): number => {
  let lo = from
  let hi = to
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Index of the first element > x in an ascending array, or in its ascending run [from, to). */
export const upperBound = (sorted: ArrayLike<number>, x: number, from = 0, to = sorted.length): number => {
  let lo = from
  let hi = to
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** scipy's `percentileofscore(kind="mean")` from the counts below and equal to x. */
export const percentileFromCounts = (less: number, equal: number, n: number): number => (100 * (less + 0.5 * equal)) / n

/** `percentileofscore(sorted, x, kind="mean")`. */
export const percentileOfScore = (sorted: ArrayLike<number>, x: number): number => {
  const less = lowerBound(sorted, x)
  return percentileFromCounts(less, upperBound(sorted, x) - less, sorted.length)
}

export type Label = "record-low" | "much-below" | "below" | "near-normal" | "above" | "much-above" | "record-high"

/** Every label, coldest (driest) first. */
export const LABELS: ReadonlyArray<Label> = ["record-low", "much-below", "below", "near-normal", "above", "much-above", "record-high"]

/**
 * The percentile cut-offs between labels: below 10 `much-below`, below 33⅓ `below`, up to 66⅔
 * `near-normal`, up to 90 `above`, above that `much-above`. The lower two bounds are exclusive and
 * the upper two inclusive, so the bands are symmetric around the 50th percentile.
 */
export const CUTS = { muchBelow: 10, below: 100 / 3, above: 200 / 3, muchAbove: 90 } as const

/** The bands of percentiles each non-record label covers, `[from, to, label]`, for drawing a scale. */
export const BANDS: ReadonlyArray<readonly [number, number, Exclude<Label, "record-low" | "record-high">]> = [
  [0, CUTS.muchBelow, "much-below"],
  [CUTS.muchBelow, CUTS.below, "below"],
  [CUTS.below, CUTS.above, "near-normal"],
  [CUTS.above, CUTS.muchAbove, "above"],
  [CUTS.muchAbove, 100, "much-above"]
]

/** The label an unrounded percentile falls in when records are not knowable (a calendar cell). */
export const labelOfPercentile = (p: number): Exclude<Label, "record-low" | "record-high"> =>
  p < CUTS.muchBelow
    ? "much-below"
    : p < CUTS.below
      ? "below"
      : p <= CUTS.above
        ? "near-normal"
        : p <= CUTS.muchAbove
          ? "above"
          : "much-above"

/** The label of a value given its unrounded percentile and the sample's extremes. */
export const label = (x: number, p: number, min: number, max: number): Label =>
  x > max ? "record-high" : x < min ? "record-low" : labelOfPercentile(p)

/**
 * The median-unbiased quantile (Hyndman–Fan type 8; numpy `method="median_unbiased"`):
 * virtual 0-based index (n + 1/3)·p − 2/3, clipped to the sample, linearly interpolated.
 */
export const quantileType8 = (sorted: ArrayLike<number>, p: number): number => {
  const n = sorted.length
  const h = Math.min(Math.max((n + 1 / 3) * p - 2 / 3, 0), n - 1)
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, n - 1)
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!)
}

/**
 * The linearly interpolated quantile (Hyndman–Fan type 7; numpy's default `method="linear"`):
 * virtual 0-based index (n − 1)·p. Interpolated as numpy's `_lerp` does, from the nearer end
 * (`b − (b − a)(1 − g)` when g ≥ 0.5), so the results agree to the last bit.
 */
export const quantileLinear = (sorted: ArrayLike<number>, p: number): number => {
  const n = sorted.length
  const h = (n - 1) * p
  const lo = Math.min(Math.floor(h), n - 1)
  const hi = Math.min(lo + 1, n - 1)
  const g = h - lo
  const a = sorted[lo]!
  const b = sorted[hi]!
  const diff = b - a
  return g >= 0.5 ? b - diff * (1 - g) : a + diff * g
}

/** Rounds half away from zero at `digits` decimals, for payloads. */
export const round = (x: number, digits: number): number => {
  const f = 10 ** digits
  const r = Math.round(Math.abs(x) * f + 1e-9) / f
  return x < 0 ? -r : r
}
