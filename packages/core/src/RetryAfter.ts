/** `Retry-After` (RFC 9110 §10.2.3) read the one way every client of an HTTP service here reads it. */

/** Seconds to wait: delay-seconds, or an HTTP date from `now` (epoch ms); null when absent or unreadable. */
export const seconds = (header: string | null | undefined, now: number): number | null => {
  if (header === null || header === undefined) return null
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value)
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000))
}
