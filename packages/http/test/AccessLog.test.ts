import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as AccessLog from "../src/edge/AccessLog.js"
import * as RequestId from "../src/edge/RequestId.js"

const at = Date.UTC(2026, 10, 26, 1, 2, 3, 45)

const capture = (format: AccessLog.Format) => {
  const lines: Array<string> = []
  const write = AccessLog.writer({ format, instance: "web-1:42", write: (l) => lines.push(l) }, () => at)
  return { lines, write }
}

describe("AccessLog", () => {
  it("json: one object per line with every field, durations to a tenth of a millisecond", () => {
    const { lines, write } = capture("json")
    write("GET", "/api/v2/cell?lat=52.52&lon=13.41", 304, 0.3456, "203.0.113.7", "abc-1")
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toEqual({
      timestamp: "2026-11-26T01:02:03.045Z",
      logLevel: "INFO",
      access: true,
      method: "GET",
      path: "/api/v2/cell?lat=52.52&lon=13.41",
      status: 304,
      duration_ms: 0.3,
      client: "203.0.113.7",
      request_id: "abc-1",
      instance: "web-1:42"
    })
    // Short: the line above is well under the 258 bytes of the old one with fewer fields.
    expect(lines[0]!.length).toBeLessThan(230)
  })

  it.prop(
    "the clock reads as Date#toISOString, from one call to the next (same millisecond, same second, or not)",
    [FastCheck.integer({ min: 0, max: 253_402_300_799_999 }), FastCheck.array(FastCheck.integer({ min: 0, max: 2_500 }), { maxLength: 6 })],
    ([start, steps]) => {
      const stamp = AccessLog.timestamps()
      let now = start
      for (const step of [0, ...steps]) {
        now = Math.min(now + step, 253_402_300_799_999)
        expect(stamp(now)).toBe(new Date(now).toISOString())
      }
    }
  )

  it.prop(
    "json: any path and address stay valid JSON and come back as written",
    [FastCheck.string(), FastCheck.string()],
    ([path, client]) => {
      const { lines, write } = capture("json")
      write("GET", path, 200, 1, client, "id")
      const parsed = JSON.parse(lines[0]!) as { path: string; client: string }
      expect(parsed.path).toBe(path)
      expect(parsed.client).toBe(client)
    }
  )

  it.prop(
    "lines in a row that share some fields and not others each say what was written (the repeated part is remade when any of it changes)",
    [
      FastCheck.array(
        FastCheck.tuple(
          FastCheck.constantFrom("GET", "POST"),
          FastCheck.constantFrom("/a", "/b?lat=1"),
          FastCheck.constantFrom(200, 304),
          FastCheck.constantFrom("::1", "203.0.113.7"),
          FastCheck.double({ min: 0, max: 5_000, noNaN: true })
        ),
        { minLength: 1, maxLength: 12 }
      ),
      FastCheck.constantFrom<AccessLog.Format>("json", "pretty")
    ],
    ([requests, format]) => {
      const { lines, write } = capture(format)
      requests.forEach(([method, path, status, client, ms], i) => write(method, path, status, ms, client, `id-${i}`))
      requests.forEach(([method, path, status, client, ms], i) => {
        const duration = Math.round(ms * 10) / 10
        if (format === "json") {
          expect(JSON.parse(lines[i]!)).toMatchObject({ method, path, status, client, duration_ms: duration, request_id: `id-${i}` })
        } else {
          expect(lines[i]).toBe(`2026-11-26T01:02:03.045Z ${client} ${method} ${path} ${status} ${duration}ms id-${i} web-1:42`)
        }
      })
    }
  )

  it("pretty: one line of words; off: nothing", () => {
    const pretty = capture("pretty")
    pretty.write("POST", "/api/v2/auth/login", 415, 1.25, "::1", "abc-2")
    expect(pretty.lines).toEqual(["2026-11-26T01:02:03.045Z ::1 POST /api/v2/auth/login 415 1.3ms abc-2 web-1:42"])
    const off = capture("off")
    off.write("GET", "/", 200, 1, "::1", "abc-3")
    expect(off.lines).toEqual([])
  })

  it("the path keeps coordinates, dates and switches; anything else is redacted", () => {
    expect(AccessLog.loggablePath("/api/v2/oauth/chat/callback?code=S&state=T&lat=1")).toBe(
      "/api/v2/oauth/chat/callback?code=[redacted]&state=[redacted]&lat=1"
    )
  })
})

describe("RequestId", () => {
  it("a proxy's id only with a trusted hop, and only bounded and of safe characters", () => {
    expect(RequestId.fromProxy("3f9c2a7e-41b2", 0)).toBeUndefined()
    expect(RequestId.fromProxy("3f9c2a7e-41b2", 1)).toBe("3f9c2a7e-41b2")
    expect(RequestId.fromProxy("a".repeat(128), 1)).toBe("a".repeat(128))
    for (const bad of ["a".repeat(129), "", 'a"b', "a b", "a\\b", "a\nb", "é"]) expect(RequestId.fromProxy(bad, 1)).toBeUndefined()
    expect(RequestId.fromProxy(["a", "b"], 1)).toBeUndefined()
  })

  it("generated ids are distinct, and acceptable as they are", () => {
    const next = RequestId.generator()
    const ids = Array.from({ length: 1000 }, next)
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids) expect(RequestId.acceptable(id)).toBe(true)
    expect(RequestId.generator()()).not.toBe(RequestId.generator()())
  })

  it("a generated id's counter is the answer's number in decimal, across the thousands", () => {
    const next = RequestId.generator()
    const ids = Array.from({ length: 3001 }, next)
    const prefix = ids[0]!.slice(0, -1)
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{8}-0$/)
    expect(ids).toEqual(ids.map((_, i) => `${prefix}${i}`))
  })
})
