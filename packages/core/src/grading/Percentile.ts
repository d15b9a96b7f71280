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

/** The label of a value given its unrounded percentile and the sample's extremes. */
export const label = (x: number, p: number, min: number, max: number): Label =>
  x > max
    ? "record-high"
    : x < min
      ? "record-low"
      : p < 10
        ? "much-below"
        : p < 100 / 3
          ? "below"
          : p <= 200 / 3
            ? "near-normal"
            : p <= 90
              ? "above"
              : "much-above"

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
