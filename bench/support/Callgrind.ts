/** What bench:http-instructions and bench:cold-instructions share: reading a callgrind dump. */
import { execFileSync } from "node:child_process"

/**
 * A dump's total instructions and its instructions by function, each divided by `per` (answers,
 * cells). V8's generated code (JavaScript, and WASM) has no symbols: it is counted under one name.
 */
export const annotate = (file: string, per: number) => {
  const annotated = execFileSync("callgrind_annotate", ["--threshold=99", file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  const total = Number(/([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/.exec(annotated)![1]!.replaceAll(",", ""))
  const byFunction = new Map<string, number>()
  for (const line of annotated.split("\n")) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(.+)$/.exec(line)
    if (m === null || m[2]!.includes("PROGRAM TOTALS")) continue
    const fn = m[2]!.startsWith("???:0x") ? "(generated code: JavaScript, WASM)" : m[2]!.replace(/ \[.*\]$/, "")
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + Number(m[1]!.replaceAll(",", "")) / per)
  }
  return { total: total / per, byFunction }
}
