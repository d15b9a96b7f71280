import { hash, verify } from "@node-rs/argon2"
import { PasswordHasher } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * argon2id via @node-rs/argon2: a maintained Rust binding shipped as prebuilt npm packages
 * (no compiler, no download at install), hashing off the event loop. Its defaults
 * (argon2id, m = 19 MiB, t = 2, p = 1) are OWASP's recommended minimum.
 */
export const layer = Layer.succeed(
  PasswordHasher,
  PasswordHasher.of({
    hash: (password) => Effect.promise(() => hash(password)),
    // A malformed stored hash is "does not verify", not a fault.
    verify: (password, stored) => Effect.promise(() => verify(stored, password).catch(() => false))
  })
)
