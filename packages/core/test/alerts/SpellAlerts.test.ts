/** Alerts per spell (docs/api.md "Alerts"): which spells make one, and its words, without IO. */
import { describe, expect, it } from "@effect/vitest"
import { CivilDate, Languages, Messages, SpellAlerts, SpellWords } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const day = (text: string) => CivilDate.parse(text) ?? Number.NaN
const spell = (over: Partial<Omit<SpellWords.RankedSpell, "kind">> & { kind: string }) => ({
  start: "2026-07-14",
  end: "2026-07-18",
  severity: "severe" as const,
  rank_peak: 3,
  of: 120,
  forecast: true,
  ...over
})

describe("spells that make alerts", () => {
  const today = day("2026-07-12")
  it("heat waves and cold spells, severe or extreme, starting by today + days ahead; under way counts", () => {
    const now = [
      spell({ kind: "heat" }),
      spell({ kind: "cold", severity: "extreme", start: "2026-07-10", end: "2026-07-12" }),
      spell({ kind: "heat", severity: "low" }),
      spell({ kind: "heat", start: "2026-07-16", end: "2026-07-20" }),
      spell({ kind: "dry" }),
      spell({ kind: "wet" })
    ]
    const found = SpellAlerts.candidates({ now, today, daysAhead: 3 })
    expect(found.map((c) => [c.kind, CivilDate.format(c.start), CivilDate.format(c.end)])).toEqual([
      ["heatwave", "2026-07-14", "2026-07-18"],
      ["coldspell", "2026-07-10", "2026-07-12"]
    ])
    expect(SpellAlerts.candidates({ now, today, daysAhead: 4 }).map((c) => c.kind)).toEqual(["heatwave", "coldspell", "heatwave"])
  })

  it.prop(
    "a spell the forecast moves a day or two at a time (always overlapping its last days) is one spell: one alert",
    [FastCheck.array(FastCheck.tuple(FastCheck.integer({ min: -2, max: 2 }), FastCheck.integer({ min: -2, max: 2 })), { maxLength: 20 })],
    ([moves]) => {
      // The log as the repository keeps it: each alerted spell's days as last seen.
      const log: Array<SpellAlerts.Days> = []
      let current = { start: 100, end: 104 }
      let alerts = 0
      const see = (seen: SpellAlerts.Days) => {
        const same = log.find((a) => SpellAlerts.overlaps(a, seen))
        if (same === undefined) {
          log.push({ ...seen })
          alerts++
        } else Object.assign(same, seen)
      }
      see(current)
      for (const [a, b] of moves) {
        const start = current.start + a
        const end = Math.max(start + 2, current.end + b)
        // Moves keep at least a day in common with the last forecast's spell.
        if (!SpellAlerts.overlaps({ start, end }, current)) continue
        current = { start, end }
        see(current)
      }
      expect(alerts).toBe(1)
      // A spell after the last one's end is another spell.
      see({ start: current.end + 1, end: current.end + 4 })
      expect(alerts).toBe(2)
    }
  )

  it("the message names the place, the first day, the severity and the standing, and links to the place", () => {
    const [candidate] = SpellAlerts.candidates({ now: [spell({ kind: "heat" })], today, daysAhead: 3 })
    expect(SpellAlerts.content({ place: "Berlin, DE", candidate: candidate!, since: 1940, link: "https://x.example/?lat=1&lon=2&date=2026-07-14" })).toBe(
      "Heat wave alert for Berlin, DE: severe, from Tue 14 July 2026. It would be the 3rd hottest heat wave here since 1940 if the forecast holds. " +
        "https://x.example/?lat=1&lon=2&date=2026-07-14"
    )
    const cold = SpellAlerts.candidates({ now: [spell({ kind: "cold", severity: "extreme", rank_peak: 1, forecast: false })], today, daysAhead: 3 })[0]!
    expect(SpellAlerts.content({ place: "Oslo, NO", candidate: cold, since: 1950, link: "L" })).toBe(
      "Cold spell alert for Oslo, NO: extreme, from Tue 14 July 2026. It is the coldest cold spell here since 1950. L"
    )
  })

  it("the message in the reader's language; English's standing is the pages' words", () => {
    const [candidate] = SpellAlerts.candidates({ now: [spell({ kind: "heat" })], today, daysAhead: 3 })
    const de = { language: "de", units: null } as const
    expect(SpellAlerts.content({ place: "Berlin, DE", candidate: candidate!, since: 1940, link: "L", reader: de })).toBe(
      "Hitzewellenwarnung für Berlin, DE: stark, ab Di., 14. Juli 2026. Sie stünde auf Platz 3 der heißesten Hitzewellen " +
        "hier seit 1940, wenn die Vorhersage eintrifft. L"
    )
    for (const kind of ["heat", "cold"] as const) {
      for (const rank_peak of [1, 2, 3, 11, 22]) {
        for (const forecast of [true, false]) {
          const s = spell({ kind, rank_peak, forecast }) as SpellWords.RankedSpell
          expect(SpellAlerts.standingSentence("en", s, 1940)).toBe(`It ${SpellWords.standing(s, 1940)}.`)
          for (const language of Languages.LANGUAGES) {
            const c = SpellAlerts.candidates({ now: [s], today, daysAhead: 3 })[0]!
            const text = SpellAlerts.content({ place: "P", candidate: c, since: 1940, link: "L", reader: { language, units: null } })
            expect(text).not.toMatch(/[{}]|undefined|NaN/)
            expect(text).toContain("1940")
            if (rank_peak > 1) expect(text).toContain(String(rank_peak))
          }
        }
      }
    }
  })

  it("the page's notice and ordinals", () => {
    expect(Messages.spellNotice("en", spell({ kind: "heat", rank_peak: 4 }) as Messages.NotableRankedSpell, 1940, "Thursday", false).text).toBe(
      "A severe heat wave from Thursday: it would be the 4th hottest here since 1940 if the forecast holds."
    )
    expect(
      Messages.spellNotice("en", spell({ kind: "cold", severity: "extreme", rank_peak: 1 }) as Messages.NotableRankedSpell, 1940, "Monday", true).text
    ).toBe("An extreme cold spell since Monday: it would be the coldest here since 1940 if the forecast holds.")
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(SpellWords.ordinalNumber)).toEqual([
      "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
    ])
  })
})
