import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as Option from "effect/Option"
import * as RequestInfo from "../src/protocol/RequestInfo.js"

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
    // An empty entry is an entry: two hops back from ",https" is the empty one.
    expect(RequestInfo.forwardedScheme(",https", 2)).toBe("http")
    expect(RequestInfo.forwardedScheme(",https", 1)).toBe("https")
    expect(RequestInfo.forwardedScheme("", 1)).toBe("http")
  })

  it.prop(
    "reads any header as the list of its entries does",
    [
      fc.oneof(
        fc.constant(undefined),
        fc.array(fc.constantFrom("", " ", "https", " HTTPS ", "http", "\thttps", "ftp"), { maxLength: 5 }).map((e) => e.join(",")),
        fc.string(),
        fc.array(fc.string(), { maxLength: 3 })
      ),
      fc.integer({ min: -1, max: 7 })
    ],
    ([header, hops]) => {
      const byList = () => {
        if (hops <= 0 || header === undefined) return "http"
        const entries = (typeof header === "string" ? header : header.join(",")).split(",")
        return entries[Math.max(0, entries.length - hops)]?.trim().toLowerCase() === "https" ? "https" : "http"
      }
      expect(RequestInfo.forwardedScheme(header, hops)).toBe(byList())
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it("an https PUBLIC_ORIGIN says https whatever the headers; an http one leaves it to the proxies", () => {
    expect(RequestInfo.isHttps({ publicOriginHttps: true }, undefined)).toBe(true)
    expect(RequestInfo.isHttps({ publicOriginHttps: false }, "https")).toBe(false)
    expect(RequestInfo.isHttps({ publicOriginHttps: false, trustedProxyHops: 1 }, "https")).toBe(true)
    expect(RequestInfo.httpsOrigin(Option.some("https://grades.example.org"))).toBe(true)
    expect(RequestInfo.httpsOrigin(Option.some("http://grades.example.org"))).toBe(false)
    expect(RequestInfo.httpsOrigin(Option.none())).toBe(false)
  })
})

describe("RequestInfo.clientAddressFrom: X-Forwarded-For as TRUSTED_PROXY_HOPS allows", () => {
  /** The rule as a list: [socket, nearest hop, …, furthest], empty entries left out; the hops-th, or the last. */
  const byList = (socket: string | undefined, header: string | ReadonlyArray<string> | undefined, hops: number) => {
    if (hops <= 0) return socket ?? "unknown"
    const text = typeof header === "string" ? header : (header ?? []).join(",")
    const entries = text
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
    const chain = [socket ?? "unknown", ...entries.reverse().map(byPattern)]
    return chain[Math.min(hops, chain.length - 1)]
  }

  /** The port rule written as patterns: `[inside]…`, or `host:port` with one colon; empty results kept whole. */
  const byPattern = (entry: string) => {
    const bracketed = /^\[([^\]]*)\]/.exec(entry)
    const ported = /^([^:]*):[^:]*$/.exec(entry)
    const address = (bracketed?.[1] ?? ported?.[1] ?? entry).trim()
    return address === "" ? entry : address
  }

  it("takes the socket's peer with no trusted hop, whatever the header says", () => {
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "203.0.113.9", 0)).toBe("10.0.0.1")
    expect(RequestInfo.clientAddressFrom(undefined, "203.0.113.9", 0)).toBe("unknown")
  })

  it("with n trusted hops, takes the entry n places from the right, empty ones skipped, or the leftmost", () => {
    // nginx appends the address it saw to what the client sent.
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "198.51.100.7, 203.0.113.9", 1)).toBe("203.0.113.9")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "198.51.100.7, 203.0.113.9", 2)).toBe("198.51.100.7")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "198.51.100.7, 203.0.113.9", 3)).toBe("198.51.100.7")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "198.51.100.7,, 203.0.113.9 , ", 2)).toBe("198.51.100.7")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", ["198.51.100.7", "203.0.113.9"], 1)).toBe("203.0.113.9")
    // No header, or nothing but separators: the socket's peer.
    expect(RequestInfo.clientAddressFrom("10.0.0.1", undefined, 1)).toBe("10.0.0.1")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", " , ,", 1)).toBe("10.0.0.1")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "", 2)).toBe("10.0.0.1")
  })

  it("drops the port and brackets a proxy wrote beside the address: one client whatever its port", () => {
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "203.0.113.9:4711", 1)).toBe("203.0.113.9")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "[2001:db8::1]:443", 1)).toBe("2001:db8::1")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "[2001:db8::1]", 1)).toBe("2001:db8::1")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "2001:db8::1", 1)).toBe("2001:db8::1")
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "198.51.100.7:1, 203.0.113.9:2", 2)).toBe("198.51.100.7")
    // An unclosed bracket is no bracketed address; its one colon is still a port's (fast-check found it).
    expect(RequestInfo.clientAddressFrom("10.0.0.1", "[abc:80", 1)).toBe("[abc")
    // The socket's own peer is never read as an entry (an IPv4-mapped address has colons).
    expect(RequestInfo.clientAddressFrom("::ffff:10.0.0.1", "203.0.113.9:1", 0)).toBe("::ffff:10.0.0.1")
    expect(RequestInfo.clientAddressFrom("::ffff:10.0.0.1", undefined, 1)).toBe("::ffff:10.0.0.1")
  })

  const ipv4 = fc.ipV4()
  const ipv6 = fc.ipV6()
  const port = fc.integer({ min: 0, max: 65535 })
  it.prop(
    "an address with or without its port, bracketed or not, reads as the address",
    [fc.oneof(ipv4, ipv6), port, fc.integer({ min: 1, max: 3 })],
    ([address, p, hops]) => {
      const ipv6Form = address.includes(":")
      const forms = ipv6Form ? [address, `[${address}]`, `[${address}]:${p}`, ` [${address}]:${p} `] : [address, `${address}:${p}`, ` ${address}:${p}`]
      for (const form of forms) {
        const header = [...Array.from({ length: hops - 1 }, () => "198.51.100.7:80"), form].reverse().join(", ")
        expect(RequestInfo.clientAddressFrom("10.0.0.1", header, hops)).toBe(address)
      }
    },
    { fastCheck: { numRuns: 2000 } }
  )

  const entry = fc.oneof(
    fc.constantFrom("", " ", "\t", "203.0.113.9", " 198.51.100.7 ", "2001:db8::1", "unknown", "203.0.113.9:4711", "[2001:db8::1]:443", ":80", "[]", "[::1"),
    fc.string()
  )
  const header = fc.oneof(
    fc.constant(undefined),
    fc.array(entry, { maxLength: 6 }).map((entries) => entries.join(",")),
    fc.array(fc.array(entry, { maxLength: 3 }).map((entries) => entries.join(",")), { maxLength: 3 })
  )
  it.prop(
    "reads any header as the list of its entries does",
    [fc.option(fc.constantFrom("10.0.0.1", "::1"), { nil: undefined }), header, fc.integer({ min: -1, max: 8 })],
    ([socket, forwardedFor, hops]) => {
      expect(RequestInfo.clientAddressFrom(socket, forwardedFor, hops)).toBe(byList(socket, forwardedFor, hops))
    },
    { fastCheck: { numRuns: 2000 } }
  )
})
