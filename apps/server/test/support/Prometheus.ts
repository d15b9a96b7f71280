/** Reading the service's `/metrics` (the Prometheus text exposition) in tests. */

/** The value of the sample line that starts with `prefix` (name and labels), 0 when there is none. */
export const sampleValue = (text: string, prefix: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(prefix))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}
