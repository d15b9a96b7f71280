/**
 * The command line without the process: arguments and input in, what to print and the exit status
 * out, so it is tested without spawning. Bad input is one line on stderr, nothing on stdout, status 2.
 */
import * as Commands from "./Commands.js"
import * as Csv from "./Csv.js"

export const USAGE = `usage: climate-grade grade FILE.csv [--date YYYY-MM-DD] [--json]
       climate-grade trend FILE.csv [--json]
       climate-grade spells FILE.csv [--json]
FILE.csv has a header row naming date and any of tmax, tmin, precip (°C and mm); an empty cell is a
missing value; - reads standard input.`

export interface Result {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

class UsageError extends Error {}

const refuse = (message: string): Result => ({ status: 2, stdout: "", stderr: `climate-grade: ${message.replace(/\s*\n\s*/g, " ")}\n` })

interface Parsed {
  readonly command: "grade" | "trend" | "spells"
  readonly file: string
  readonly date: string | undefined
  readonly json: boolean
}

const parseArgs = (args: ReadonlyArray<string>): Parsed | "help" => {
  if (args.length === 0 || args.includes("--help") || args.includes("-h")) return "help"
  const [command, ...rest] = args
  if (command !== "grade" && command !== "trend" && command !== "spells") {
    throw new UsageError(`unknown command ${JSON.stringify(command)}; use grade, trend or spells (climate-grade --help)`)
  }
  let file: string | undefined
  let date: string | undefined
  let json = false
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === "--json") json = true
    else if (arg === "--date" && command === "grade") {
      date = rest[++i]
      if (date === undefined) throw new UsageError("--date needs a date YYYY-MM-DD")
    } else if (arg.startsWith("--date=") && command === "grade") date = arg.slice("--date=".length)
    else if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown option ${arg} for ${command}`)
    else if (file === undefined) file = arg
    else throw new UsageError(`one file at a time; ${JSON.stringify(arg)} is a second`)
  }
  if (file === undefined) throw new UsageError(`${command} needs a CSV file, or - for standard input`)
  return { command, file, date, json }
}

/** Runs a command line; `read` gives a file's text (or standard input's for "-"). */
export const run = async (args: ReadonlyArray<string>, read: (file: string) => Promise<string>): Promise<Result> => {
  let parsed: Parsed | "help"
  try {
    parsed = parseArgs(args)
  } catch (e) {
    if (e instanceof UsageError) return refuse(e.message)
    throw e
  }
  if (parsed === "help") return { status: 0, stdout: `${USAGE}\n`, stderr: "" }
  let text: string
  try {
    text = await read(parsed.file)
  } catch (e) {
    const code = (e as { code?: unknown }).code
    return refuse(`cannot read ${parsed.file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory" : String((e as Error).message ?? e)}`)
  }
  try {
    const table = Csv.parse(text)
    const out =
      parsed.command === "grade"
        ? Commands.grade(table, parsed.date)
        : parsed.command === "trend"
          ? Commands.trend(table)
          : Commands.spells(table)
    return { status: 0, stdout: parsed.json ? `${JSON.stringify(out.json, null, 2)}\n` : out.text, stderr: "" }
  } catch (e) {
    if (e instanceof Csv.CsvError) return refuse(`${parsed.file === "-" ? "standard input" : parsed.file}: ${e.message}`)
    if (e instanceof Commands.DateError) return refuse(e.message)
    throw e
  }
}
