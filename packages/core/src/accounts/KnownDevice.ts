/**
 * The known-device cookie (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a
 * browser that has signed in to an account keeps a signed entry for it, and its later attempts
 * on that account are counted for that device alone (LoginThrottle), so no stranger's failures
 * slow or stop it.
 *
 * The value is up to `MAX_ENTRIES` entries joined by `~`, newest first, each
 * `<device>.<issued>.<mac>`: `device` a random 128-bit id (URL-safe base64), `issued` the epoch
 * second of the sign-in, `mac` the first 32 hex characters of HMAC-SHA256(AUTH_SECRET,
 * `known-device|<account>|<device>|<issued>`), `account` the e-mail as counted (trimmed, lower
 * case). The cookie names no account: an entry is recognised by trying the address being signed
 * in to, and one made for another address does not verify.
 *
 * Entries are made with the current secret and recognised under any accepted one (AuthSecret),
 * so a rotation keeps every browser known; a sign-in renews its entry under the current secret.
 */
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthSecret from "../AuthSecret.js"
import { constantTimeEqual, hmacSha256Hex } from "../Crypto.js"

/** How long a device stays known after its last sign-in. */
export const TTL_SECONDS = 180 * 24 * 60 * 60

/** Accounts one browser is remembered for (a shared computer); the least recent is forgotten first. */
export const MAX_ENTRIES = 5

const MAC_LENGTH = 32

/** The account an entry is made for: the address as it is counted. */
export const account = (email: string): string => email.trim().toLowerCase()

interface Entry {
  readonly device: string
  readonly issued: number
  readonly mac: string
  readonly text: string
}

const mac = (secret: string, email: string, device: string, issued: number) =>
  hmacSha256Hex(secret, `known-device|${account(email)}|${device}|${issued}`).slice(0, MAC_LENGTH)

/** One entry for `email`, made at `nowMs` with the signing secret. */
export const entry = (keys: AuthSecret.Keys, email: string, device: string, nowMs: number): string => {
  const issued = Math.floor(nowMs / 1000)
  return `${device}.${issued}.${mac(Redacted.value(AuthSecret.signing(keys)), email, device, issued)}`
}

/** Whether an entry was signed for `email` under one of the accepted secrets. */
const signedFor = (keys: AuthSecret.Keys, e: Entry, email: string) =>
  Option.isSome(
    AuthSecret.firstAccepted(keys, (secret) =>
      constantTimeEqual(e.mac, mac(secret, email, e.device, e.issued)) ? Option.some(true) : Option.none()
    )
  )

/** The well-formed entries of a cookie, in order; anything else in it is dropped. */
const entries = (cookie: string | undefined): ReadonlyArray<Entry> =>
  (cookie ?? "")
    .split("~")
    .slice(0, MAX_ENTRIES)
    .flatMap((text) => {
      const match = /^([A-Za-z0-9_-]{16,64})\.(\d{1,12})\.([0-9a-f]{32})$/.exec(text)
      return match === null ? [] : [{ device: match[1]!, issued: Number(match[2]), mac: match[3]!, text }]
    })

const live = (e: Entry, nowMs: number) => e.issued * 1000 + TTL_SECONDS * 1000 > nowMs && e.issued * 1000 <= nowMs + 60_000

/** The device this cookie names for the account of `email`, if one of its entries was signed for it and is not expired. */
export const recognise = (keys: AuthSecret.Keys, cookie: string | undefined, email: string, nowMs: number): Option.Option<string> => {
  for (const e of entries(cookie)) {
    if (live(e, nowMs) && signedFor(keys, e, email)) return Option.some(e.device)
  }
  return Option.none()
}

/**
 * The cookie after a sign-in to `email`: its entry first, made now (keeping the device id it had,
 * else `newDevice`), then the other live entries, at most `MAX_ENTRIES` in all.
 */
export const afterSignIn = (
  keys: AuthSecret.Keys,
  cookie: string | undefined,
  email: string,
  newDevice: string,
  nowMs: number
): string => {
  const device = Option.getOrElse(recognise(keys, cookie, email, nowMs), () => newDevice)
  const others = entries(cookie).filter((e) => live(e, nowMs) && e.device !== device && !signedFor(keys, e, email))
  return [entry(keys, email, device, nowMs), ...others.map((e) => e.text)].slice(0, MAX_ENTRIES).join("~")
}
