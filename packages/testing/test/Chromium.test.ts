/** The browser helper works here: Chromium starts, loads a page, reports CSP violations and runs axe. */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, layer } from "@effect/vitest"
import { Chromium } from "@climate-grade/testing"
import * as Effect from "effect/Effect"

const page = (body: string, csp: string) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; close: () => void }>((resume) => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": csp })
        res.end(body)
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() }))
      )
    }),
    ({ close }) => Effect.sync(close)
  )

layer(Chromium.layer)("Chromium", (it) => {
  describe("a page", () => {
    it.scoped("is loaded, its inline script refused by the CSP and reported, and axe finds its faults", () =>
      Effect.gen(function* () {
        const browser = yield* Chromium.Chromium
        const { url } = yield* page(
          `<!doctype html><html lang="en"><title>t</title><h1>Hello</h1><img src="data:,"><script>document.title = "ran"</script>`,
          "script-src 'self'; frame-ancestors 'none'"
        )
        const { context, log, page: p } = yield* Effect.promise(() => Chromium.openPage(browser))
        yield* Effect.promise(() => p.goto(url))
        expect(yield* Effect.promise(() => p.getByRole("heading").textContent())).toBe("Hello")
        expect(yield* Effect.promise(() => p.title())).toBe("t")
        expect(Chromium.cspViolations(log).length).toBeGreaterThan(0)
        const violations = yield* Effect.promise(() => Chromium.axe(p, "critical"))
        expect(violations.map((v) => v.id)).toContain("image-alt")
        yield* Effect.promise(() => context.close())
      })
    )
  })
})
