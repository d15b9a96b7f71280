/**
 * `pnpm --filter @climate-grade/card fonts`: regenerates the card's Japanese font files in fonts/
 * from Noto Sans JP's full files (@expo-google-fonts/noto-sans-jp), cut down to the characters of
 * glyphs.ts by fontTools' pyftsubset (needs Python with fontTools: Debian's `python3-fonttools`).
 * resvg reads every font file a card loads on each drawing, and each text measured is a drawing of
 * its own: a full weight is 5.5 MB, the subset well under half. fonts/SOURCES.json records what each
 * file was made from and its SHA-256 (the card's tests hold the files to it).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { japanese } from "./glyphs.js"

const require = createRequire(import.meta.url)
const FONTS = join(import.meta.dirname, "../fonts")
const PACKAGE = "@expo-google-fonts/noto-sans-jp"

/** Each weight the card draws Japanese in (600 is drawn with the nearest), and the file it becomes. */
export const WEIGHTS = [
  { source: `${PACKAGE}/400Regular/NotoSansJP_400Regular.ttf`, file: "NotoSansJP-Regular.subset.ttf" },
  { source: `${PACKAGE}/700Bold/NotoSansJP_700Bold.ttf`, file: "NotoSansJP-Bold.subset.ttf" }
] as const

/**
 * Hinting is dropped (resvg does not hint; the source has none anyway) and the vertical metrics
 * too (the card writes horizontally); the layout features pyftsubset keeps by default (kerning,
 * ligatures, localized forms) stay. No time stamp is written, so the same input makes the same bytes.
 */
const OPTIONS = ["--no-hinting", "--drop-tables+=vhea,vmtx", "--no-recalc-timestamp"]

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex")

/** The first Python that has fontTools: PYTHON if set, else python3 on the PATH, else Debian's. */
const python = (): string => {
  for (const candidate of [process.env.PYTHON, "python3", "/usr/bin/python3"]) {
    if (candidate === undefined) continue
    try {
      execFileSync(candidate, ["-c", "import fontTools.subset"], { stdio: "ignore" })
      return candidate
    } catch {}
  }
  throw new Error("no Python with fontTools: apt-get install python3-fonttools (or pip install fonttools), or set PYTHON")
}

const main = () => {
  const py = python()
  const version = execFileSync(py, ["-c", "import fontTools; print(fontTools.version)"], { encoding: "utf8" }).trim()
  const work = mkdtempSync(join(tmpdir(), "card-fonts-"))
  try {
    const codePoints = japanese()
    const unicodes = join(work, "unicodes.txt")
    writeFileSync(unicodes, codePoints.map((cp) => cp.toString(16).padStart(4, "0")).join("\n") + "\n")
    const files = WEIGHTS.map(({ source, file }) => {
      const from = require.resolve(source)
      const to = join(FONTS, file)
      execFileSync(py, ["-m", "fontTools.subset", from, `--unicodes-file=${unicodes}`, `--output-file=${to}`, ...OPTIONS], { stdio: "inherit" })
      return { file, source, sourceSha256: sha256(from), sha256: sha256(to) }
    })
    copyFileSync(require.resolve(`${PACKAGE}/LICENSE_FONT`), join(FONTS, "OFL.txt"))
    const sources = {
      about: "Written by scripts/subset-fonts.ts: Noto Sans JP cut to the characters of scripts/glyphs.ts. Do not edit.",
      package: `${PACKAGE}@${(require(`${PACKAGE}/package.json`) as { version: string }).version}`,
      fontTools: version,
      options: OPTIONS,
      codePoints: codePoints.length,
      files
    }
    writeFileSync(join(FONTS, "SOURCES.json"), JSON.stringify(sources, null, 2) + "\n")
    for (const f of files) console.log(`${f.file}: ${readFileSync(join(FONTS, f.file)).length} bytes`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] === import.meta.filename) main()
