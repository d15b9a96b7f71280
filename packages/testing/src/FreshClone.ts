/**
 * A copy of the repository holding only what a clone holds, for tests that run its commands as a
 * newcomer would: no builds, no installed packages, no database.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync } from "node:fs"
import { dirname, join } from "node:path"

/** Copies into `target` the files a clone of `root` has: tracked, and new ones not ignored (a test runs before a commit too). */
export const copyInto = (root: string, target: string): void => {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root })
    .toString()
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(root, f)))
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true })
    cpSync(join(root, file), join(target, file))
  }
}
