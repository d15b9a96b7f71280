/**
 * The service's HMAC key, and the rule that lets it rotate: everything new is signed with the
 * current secret, and whatever the previous one signed (a sign-in in flight, a known-device
 * cookie) is still accepted while it is configured. Every HMAC made with the secret goes through
 * `signing` and `accepted`, so no signed thing is forgotten at a rotation.
 */
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export interface Keys {
  /** Signs everything new. */
  readonly current: Redacted.Redacted<string>
  /** The secret before the last rotation: what it signed is still accepted, nothing new is signed with it. */
  readonly previous: Option.Option<Redacted.Redacted<string>>
}

/** The service's HMAC keys for signed states, PKCE verifiers and known-device cookies. */
export class AuthSecret extends Context.Tag("@climate-grade/core/AuthSecret")<AuthSecret, Keys>() {}

const redacted = (secret: string | Redacted.Redacted<string>) => (typeof secret === "string" ? Redacted.make(secret) : secret)

/** Keys from the current secret and, during a rotation, the previous one. */
export const keys = (current: string | Redacted.Redacted<string>, previous?: string | Redacted.Redacted<string>): Keys => ({
  current: redacted(current),
  previous: Option.map(Option.fromNullable(previous), redacted)
})

/** The secret that signs. */
export const signing = (keys: Keys): Redacted.Redacted<string> => keys.current

/** The secrets whose signatures are accepted, the current one first. */
export const accepted = (keys: Keys): ReadonlyArray<Redacted.Redacted<string>> =>
  Option.match(keys.previous, {
    onNone: () => [keys.current],
    onSome: (previous) => (Redacted.value(previous) === Redacted.value(keys.current) ? [keys.current] : [keys.current, previous])
  })

/**
 * The first accepted secret under which `check` finds something, with what it found: a
 * verification that also needs the secret afterwards (a PKCE verifier) uses the one that verified.
 */
export const firstAccepted = <A>(
  keys: Keys,
  check: (secret: string) => Option.Option<A>
): Option.Option<{ readonly value: A; readonly secret: Redacted.Redacted<string> }> => {
  for (const secret of accepted(keys)) {
    const found = check(Redacted.value(secret))
    if (Option.isSome(found)) return Option.some({ value: found.value, secret })
  }
  return Option.none()
}
