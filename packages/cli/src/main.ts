#!/usr/bin/env node
import { readFile } from "node:fs/promises"
import { text } from "node:stream/consumers"
import { run } from "./Run.js"

const read = (file: string): Promise<string> => (file === "-" ? text(process.stdin) : readFile(file, "utf8"))

const result = await run(process.argv.slice(2), read)
process.stdout.write(result.stdout)
process.stderr.write(result.stderr)
process.exitCode = result.status
