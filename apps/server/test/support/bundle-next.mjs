// `node bundle-next.mjs OUTDIR MIGRATION NAME`: the server as its next release would be, this
// tree's bundle (bundle.mjs) with one more migration, MIGRATION (a module whose default export is
// the migration), recorded as NAME under the number after the last. Prints {"id": …}.
import { readFile } from "node:fs/promises"
import { dirname } from "node:path"
import { bundle, toAscii } from "../../bundle.mjs"

const [outdir, migration, name] = process.argv.slice(2)
if (outdir === undefined || migration === undefined || name === undefined) throw new Error("usage: bundle-next.mjs OUTDIR MIGRATION NAME")
let added
const oneMore = {
  name: "one-more-migration",
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/]postgres[\\/]src[\\/]Migrations\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8")
      const record = /(Migrator\.fromRecord\(\{[\s\S]*?)(\n\}\))/.exec(source)
      if (record === null) throw new Error(`${args.path}: no Migrator.fromRecord({ … }) to add a migration to`)
      const last = Math.max(...[...record[1].matchAll(/"(\d{4})_\w+"/g)].map((m) => Number(m[1])))
      added = `${String(last + 1).padStart(4, "0")}_${name}`
      const contents =
        `import nextReleaseMigration from ${JSON.stringify(migration)}\n` +
        source.replace(record[0], `${record[1]},\n  ${JSON.stringify(added)}: nextReleaseMigration${record[2]}`)
      return { contents, loader: "ts", resolveDir: dirname(args.path) }
    })
  }
}
await toAscii(await bundle(outdir, [oneMore]))
if (added === undefined) throw new Error("the bundle never loaded Migrations.ts")
process.stdout.write(`${JSON.stringify({ id: added })}\n`)
