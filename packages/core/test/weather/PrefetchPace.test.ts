import { describe, expect, it } from "@effect/vitest"
import { PrefetchPace } from "@climate-grade/core"

describe("PrefetchPace", () => {
  it("a client has its burst, then one token per refill period; others are not held back", () => {
    const pace = PrefetchPace.make({ burst: 3, refillMs: 2_000, clients: 10 })
    const now = 1_800_000_000_000
    for (let i = 0; i < 3; i++) {
      expect(pace.waitSeconds("a", now)).toBe(0)
      pace.take("a", now)
    }
    expect(pace.waitSeconds("a", now)).toBe(2)
    expect(pace.waitSeconds("a", now + 1_000)).toBe(1)
    expect(pace.waitSeconds("b", now)).toBe(0)
    // A token back after 2 s, no more than the burst however long the wait.
    expect(pace.waitSeconds("a", now + 2_000)).toBe(0)
    pace.take("a", now + 2_000)
    expect(pace.waitSeconds("a", now + 2_000)).toBe(2)
    pace.take("a", now + 1_000_000)
    pace.take("a", now + 1_000_000)
    pace.take("a", now + 1_000_000)
    expect(pace.waitSeconds("a", now + 1_000_000)).toBe(2)
  })

  it("scanning 12,800 cells takes a client hours at the defaults", () => {
    const pace = PrefetchPace.make()
    let now = 0
    let scanned = 0
    while (scanned < 12_800) {
      const wait = pace.waitSeconds("scanner", now)
      if (wait > 0) now += wait * 1000
      else {
        pace.take("scanner", now)
        scanned++
      }
    }
    expect(now / 3_600_000).toBeGreaterThan(7)
  })
})
