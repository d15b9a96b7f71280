/**
 * Does a request's `Accept-Encoding` admit gzip? `gzip` or `x-gzip` with q > 0
 * does; so does `*` with q > 0 unless gzip itself is refused. An explicit `gzip;q=0`, `identity`
 * alone, or no header at all does not. Names are case-insensitive; an unreadable q counts as 0.
 */
interface Coding {
  readonly name: string
  readonly q: number
}

const parse = (header: string): ReadonlyArray<Coding> =>
  header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const [name, ...params] = part.split(";").map((s) => s.trim())
      const qParam = params.find((p) => /^q=/i.test(p))
      const qText = qParam?.slice(2).trim()
      const q = qText === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(qText) ? Number(qText) : 0
      return { name: name!.toLowerCase(), q }
    })

export const acceptsGzip = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const codings = parse(header)
  const gzip = codings.filter((c) => c.name === "gzip" || c.name === "x-gzip")
  if (gzip.length > 0) return gzip.some((c) => c.q > 0)
  return codings.some((c) => c.name === "*" && c.q > 0)
}
