import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** Whether the database answers, for `/health`. */
export class DatabaseHealth extends Context.Tag("@climate-grade/core/DatabaseHealth")<
  DatabaseHealth,
  { readonly ping: Effect.Effect<boolean> }
>() {}
