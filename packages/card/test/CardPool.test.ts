/**
 * The card pool: drawings on worker threads, the event loop free meanwhile, a long label fitted in
 * a few measurements, a drawing dropped when nobody waits for it or when it runs out of time.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { CardPool } from "@climate-grade/card"
import type { Payloads } from "@climate-grade/core"

const grade = (label: string): Payloads.GradePayload => ({
  view: "grade",
  v: 1,
  cell: { lat: 35.75, lon: 139.75, label, timezone: "Asia/Tokyo" },
  date: "2026-11-26",
  issued: "2026-11-26T00:00:00.000Z",
  variables: {
    tmax: { value: 21.4, unit: "°C", percentile: 100, label: "record-high", n: 430 },
    tmin: { value: -2.7, unit: "°C", percentile: 25.2, label: "below", n: 430 },
    precip: { value: 0, unit: "mm", percentile: null, label: null, n: 12 }
  }
})

const isPng = (png: Uint8Array) => Buffer.from(png).subarray(1, 4).toString("latin1") === "PNG"

/** The longest the event loop went without a turn while `work` ran (a timer every 5 ms). */
const longestStall = async <A>(work: Promise<A>): Promise<{ value: A; stallMs: number }> => {
  let last = performance.now()
  let stallMs = 0
  const tick = setInterval(() => {
    const now = performance.now()
    stallMs = Math.max(stallMs, now - last)
    last = now
  }, 5)
  try {
    return { value: await work, stallMs }
  } finally {
    clearInterval(tick)
  }
}

describe("CardPool", () => {
  const pool = CardPool.make({ size: 1, timeoutMs: 60_000 })
  afterAll(() => pool.close())

  it("draws a card with a 3,000-character label on a worker thread, the event loop free meanwhile", async () => {
    // The first drawing also starts the thread (and loads the font).
    expect(isPng((await pool.draw(grade("Tokyo"), "metric")).png)).toBe(true)
    const label = `${"Llanfairpwllgwyngyll ".repeat(143)}, GB`.slice(0, 3_000)
    expect(label.length).toBe(3_000)
    const { value, stallMs } = await longestStall(pool.draw(grade(label), "metric"))
    console.log(`3,000-character label: drawn in ${value.ms.toFixed(0)} ms, the event loop's longest stall ${stallMs.toFixed(0)} ms`)
    expect(isPng(value.png)).toBe(true)
    // Generous: the drawing itself took ~100 ms at most on the worker; the loop only timers' jitter.
    expect(stallMs).toBeLessThan(value.ms + 1_000)
    expect(stallMs).toBeLessThan(1_000)
  })

  it("drops a drawing nobody waits for: out of the queue, or its thread ended, and the next one drawn", async () => {
    const controllers = Array.from({ length: 5 }, () => new AbortController())
    const abandoned = controllers.map((c, i) => pool.draw(grade(`Abandoned ${i}`), "metric", c.signal).then(
      () => "drawn",
      (error: Error) => error.name
    ))
    expect(pool.load()).toEqual({ drawing: 1, waiting: 4 })
    for (const c of controllers) c.abort()
    expect(await Promise.all(abandoned)).toEqual(Array(5).fill("DrawAborted"))
    expect(pool.load()).toEqual({ drawing: 0, waiting: 0 })
    expect(isPng((await pool.draw(grade("After"), "imperial")).png)).toBe(true)
  })

  it("refuses past its queue's bound, and ends a drawing past its time", async () => {
    const small = CardPool.make({ size: 1, queueLimit: 1, timeoutMs: 1 })
    try {
      const late = small.draw(grade("Late"), "metric").catch((error: Error) => error.name)
      const waiting = small.draw(grade("Waiting"), "metric").catch((error: Error) => error.name)
      const refused = small.draw(grade("Refused"), "metric").catch((error: Error) => error.name)
      expect(await refused).toBe("PoolFull")
      expect([await late, await waiting]).toEqual(["DrawTimeout", "DrawTimeout"])
    } finally {
      await small.close()
    }
  })
})
