import { describe, expect, it } from "@effect/vitest"
import { DayEdges } from "@climate-grade/testing"

const at = (iso: string) => Date.parse(iso)

describe("DayEdges.waitNeeded", () => {
  it("is 0 while the date holds through the margin; else the time to a second past the change", () => {
    expect(DayEdges.waitNeeded("Etc/UTC", 60_000, at("2026-11-27T12:00:00Z"))).toBe(0)
    expect(DayEdges.waitNeeded("Etc/UTC", 60_000, at("2026-11-27T23:58:59.999Z"))).toBe(0)
    expect(DayEdges.waitNeeded("Etc/UTC", 60_000, at("2026-11-27T23:59:30Z"))).toBe(31_000)
    // Berlin's midnight is 23:00 UTC in winter, 22:00 in summer.
    expect(DayEdges.waitNeeded("Europe/Berlin", 60_000, at("2026-11-27T23:59:30Z"))).toBe(0)
    expect(DayEdges.waitNeeded("Europe/Berlin", 60_000, at("2026-11-27T22:59:30Z"))).toBe(31_000)
    expect(DayEdges.waitNeeded("Europe/Berlin", 60_000, at("2026-07-01T21:59:50Z"))).toBe(11_000)
  })

  it("asks about a clock moved ahead at its own instant: three days on can cross a daylight-saving change", () => {
    // 26 March 2027, 22:59:30 UTC is 23:59:30 in Berlin; three days of 24 hours on, summer time has
    // begun and it is already 00:59:30 on the 30th: no midnight within the minute then.
    const now = at("2027-03-26T22:59:30Z")
    expect(DayEdges.waitNeeded("Europe/Berlin", 60_000, now)).toBe(31_000)
    expect(DayEdges.waitNeeded("Europe/Berlin", 60_000, now, 3 * 86_400_000)).toBe(0)
    // And 21:59:30 UTC that day is before midnight now, but midnight three days on.
    expect(DayEdges.waitNeeded("Europe/Berlin", 60_000, at("2027-03-26T21:59:30Z"), 3 * 86_400_000)).toBe(31_000)
  })
})
