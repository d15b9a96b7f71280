import { randomBytes } from "node:crypto"
import { SecureRandom } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The operating system's CSPRNG. */
export const layer = Layer.succeed(
  SecureRandom,
  SecureRandom.of({ bytes: (n) => Effect.sync(() => new Uint8Array(randomBytes(n))) })
)
