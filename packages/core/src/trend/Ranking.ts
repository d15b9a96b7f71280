/**
 * Where this period's value stands among the same span of earlier years:
 * its rank (1 = highest), how many years were compared, and the highest and lowest years.
 * Ranks are computed on the values as the payload shows them (already rounded), so two years
 * that read alike are tied.
 */

export interface YearValue {
  readonly year: number
  readonly value: number
}

export interface Standing {
  /** This period's value; null when it misses a day of the variable. */
  readonly value: number | null
  /** 1 + the number of compared years with a strictly higher value; null with the value. */
  readonly rank: number | null
  /** The compared years plus this one. */
  readonly of: number
  /** The extreme years of the comparison, this one included; the earliest year on a tie. */
  readonly highest: YearValue | null
  readonly lowest: YearValue | null
}

/** The earlier of two years when their values tie, else the one `better` prefers. */
const pick = (a: YearValue, b: YearValue, better: (x: number, y: number) => boolean): YearValue =>
  better(b.value, a.value) || (b.value === a.value && b.year < a.year) ? b : a

/**
 * `own`: this period's year and value (value null when the period misses a day);
 * `compared`: the earlier years whose span is whole, in any order.
 */
export const standing = (
  own: { readonly year: number; readonly value: number | null },
  compared: ReadonlyArray<YearValue>
): Standing => {
  const of = compared.length + 1
  if (own.value === null) return { value: null, rank: null, of, highest: null, lowest: null }
  const self: YearValue = { year: own.year, value: own.value }
  let higher = 0
  let highest = self
  let lowest = self
  for (const other of compared) {
    if (other.value > self.value) higher++
    highest = pick(highest, other, (x, y) => x > y)
    lowest = pick(lowest, other, (x, y) => x < y)
  }
  return { value: self.value, rank: 1 + higher, of, highest, lowest }
}
