/**
 * The network a client address counts as, wherever a limit is per client (failed sign-ins, new
 * places loading at once). An IPv4-mapped IPv6 address counts as its IPv4 address; any other IPv6
 * address counts as its /64 network, since one subscriber is usually given a whole /64 and could
 * otherwise rotate through it to escape a limit. Anything else is taken as it is, trimmed and
 * lower-cased.
 */
export const of = (address: string): string => {
  const trimmed = address.trim().toLowerCase().replace(/%.*$/, "")
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(trimmed)
  if (mapped !== null) return mapped[1]!
  if (!trimmed.includes(":")) return trimmed
  const groups = expandIpv6(trimmed)
  return groups === undefined ? trimmed : `${groups.slice(0, 4).join(":")}::/64`
}

/** The eight groups of an IPv6 address, without leading zeros; undefined when it is not one. */
const expandIpv6 = (address: string): ReadonlyArray<string> | undefined => {
  const halves = address.split("::")
  if (halves.length > 2) return undefined
  const part = (s: string) => (s === "" ? [] : s.split(":"))
  const head = part(halves[0]!)
  const tail = halves.length === 2 ? part(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => "0"), ...tail]
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined
  return groups.map((g) => g.replace(/^0+(?=.)/, ""))
}
