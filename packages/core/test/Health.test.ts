import { describe, expect, it } from "@effect/vitest"
import { failureKind } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

describe("failureKind", () => {
  it("no SQLSTATE, a connection, resource, rollback or operator class is 'unavailable'; any other answer is a 'fault'", () => {
    expect(failureKind(undefined)).toBe("unavailable")
    for (const state of ["08006", "08P01", "40001", "40P01", "53300", "57014", "57P01", "55P03"]) {
      expect([state, failureKind(state)]).toEqual([state, "unavailable"])
    }
    // A damaged page or index, a broken constraint, text the database cannot hold, a missing table.
    for (const state of ["XX001", "XX002", "23505", "23503", "22021", "22P05", "42P01", "55000"]) {
      expect([state, failureKind(state)]).toEqual([state, "fault"])
    }
    const sqlState = FastCheck.stringMatching(/^[0-9A-Z]{5}$/)
    FastCheck.assert(
      FastCheck.property(sqlState, (state) => {
        const transient = ["08", "40", "53", "57"].includes(state.slice(0, 2)) || state === "55P03"
        expect(failureKind(state)).toBe(transient ? "unavailable" : "fault")
      })
    )
  })
})
