/**
 * Each payload type's schema version (the payload's `v`). Its own module, free of hashing, so the
 * client library can import it (to drop cached entries of another version) without the server's code.
 */
export type View = "grade" | "forecast" | "calendar" | "day" | "bundle" | "trend" | "spells"

/** Raising one invalidates every cached payload and ETag of it, on the server and in clients. */
export const PAYLOAD_VER: Readonly<Record<View, number>> = {
  grade: 1,
  // 2: each day carries its normal (the date's climatology bands).
  forecast: 2,
  calendar: 1,
  day: 1,
  bundle: 1,
  trend: 1,
  spells: 1
}
