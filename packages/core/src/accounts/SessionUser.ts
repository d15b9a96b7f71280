/**
 * An inactive user's session is no session: the one place that turns a session
 * token into a user. `is_active` is read with the session on every request, so deactivation
 * takes effect at once.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { User } from "./Domain.js"
import { Sessions } from "./Ports.js"

/** The active user the token's session names, if any; an empty token names none. */
export const find = (token: string) =>
  token === ""
    ? Effect.succeed(Option.none<User>())
    : Effect.flatMap(Sessions, (sessions) => Effect.map(sessions.find(token), Option.filter((u) => u.isActive)))

/** The first active user among the tokens, tried in order (a stale cookie does not hide a valid bearer token). */
export const first = (tokens: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    for (const token of tokens) {
      const user = yield* find(token)
      if (Option.isSome(user)) return user
    }
    return Option.none<User>()
  })
