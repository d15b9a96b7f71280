import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as RequestInfo from "../src/RequestInfo.js"

describe("RequestInfo.forwardedScheme: X-Forwarded-Proto as TRUSTED_PROXY_HOPS allows", () => {
  it("is ignored with no trusted hop, whatever it says", () => {
    for (const header of ["https", "HTTPS", "https, https", ["https"], undefined]) {
      expect(RequestInfo.forwardedScheme(header, 0)).toBe("http")
    }
  })

  it("with n trusted hops, reads the entry the outermost trusted proxy wrote: n places from the right", () => {
    expect(RequestInfo.forwardedScheme("https", 1)).toBe("https")
    expect(RequestInfo.forwardedScheme(" HTTPS ", 1)).toBe("https")
    // The client wrote "https"; the one trusted proxy appended what it saw.
    expect(RequestInfo.forwardedScheme("https, http", 1)).toBe("http")
    expect(RequestInfo.forwardedScheme("http, https", 1)).toBe("https")
    // Two trusted proxies that append: the outer one's entry.
    expect(RequestInfo.forwardedScheme("http, https, http", 2)).toBe("https")
    // Proxies that replace the header leave one entry, which is theirs.
    expect(RequestInfo.forwardedScheme("https", 3)).toBe("https")
    expect(RequestInfo.forwardedScheme(["http", "https"], 1)).toBe("https")
    expect(RequestInfo.forwardedScheme(undefined, 1)).toBe("http")
    expect(RequestInfo.forwardedScheme("gopher", 1)).toBe("http")
  })

  it("an https PUBLIC_ORIGIN says https whatever the headers; an http one leaves it to the proxies", () => {
    expect(RequestInfo.isHttps({ publicOriginHttps: true }, undefined)).toBe(true)
    expect(RequestInfo.isHttps({ publicOriginHttps: false }, "https")).toBe(false)
    expect(RequestInfo.isHttps({ publicOriginHttps: false, trustedProxyHops: 1 }, "https")).toBe(true)
    expect(RequestInfo.httpsOrigin(Option.some("https://grades.example.org"))).toBe(true)
    expect(RequestInfo.httpsOrigin(Option.some("http://grades.example.org"))).toBe(false)
    expect(RequestInfo.httpsOrigin(Option.none())).toBe(false)
  })
})
