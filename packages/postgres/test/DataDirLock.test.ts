import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { DataDirLock } from "@climate-grade/postgres"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const withDir = <A, E>(f: (dir: string) => Effect.Effect<A, E, import("effect/Scope").Scope>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "cg-lock-"))),
    (dir) => Effect.scoped(f(dir)),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** The pid of a process that has just exited: no process runs with it (barring reuse within ms). */
const deadPid = (): number => Number(spawnSync("node", ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString())

describe("DataDirLock", () => {
  it.effect("the first holder owns the directory; a second acquire fails naming it; release frees it", () =>
    withDir((dir) =>
      Effect.gen(function* () {
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* DataDirLock.acquire(dir)
            expect(readFileSync(join(dir, DataDirLock.LOCK_FILE), "utf8")).toBe(`${process.pid}\n`)
            expect(DataDirLock.owner(dir)).toEqual(Option.some(process.pid))
            const second = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))
            expect(second).toMatchObject({ _tag: "DataDirLocked", pid: process.pid })
            expect(second.message).toMatch(/is in use by process \d+: stop that process first/)
          })
        )
        expect(existsSync(join(dir, DataDirLock.LOCK_FILE))).toBe(false)
        expect(DataDirLock.owner(dir)).toEqual(Option.none())
      })
    ))

  it.effect("a lock left by a process that no longer runs is taken over; one held by a live process is not", () =>
    withDir((dir) =>
      Effect.gen(function* () {
        const lock = join(dir, DataDirLock.LOCK_FILE)
        writeFileSync(lock, `${deadPid()}\n`)
        expect(DataDirLock.owner(dir)).toEqual(Option.none())
        yield* Effect.scoped(DataDirLock.acquire(dir))
        // pid 1 always runs (init): a live owner other than this process.
        writeFileSync(lock, "1\n")
        expect(DataDirLock.owner(dir)).toEqual(Option.some(1))
        expect(yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))).toMatchObject({ _tag: "DataDirLocked", pid: 1 })
        expect(readFileSync(lock, "utf8")).toBe("1\n")
        // This process's own pid in a lock it does not hold (a container restarted with the same pid): stale.
        writeFileSync(lock, `${process.pid}\n`)
        yield* Effect.scoped(DataDirLock.acquire(dir))
      })
    ))
})
