/**
 * Watching a place: one watch per user and cell (watching the cell again replaces
 * its kinds and keeps its id), at most `watchLimit` per user, and a watch created or changed is
 * evaluated at once: queued for the evaluator.
 *
 * A watch is graded against its cell's history, so a cell not held yet is loaded first, in the
 * request, as any client's new cell (OWASP API4:2023): in one of the client's cold-cell slots and
 * paid from the user's and the client network's share of the day's budget. A refusal or a failed
 * load makes no watch; a watch is never left over a cell nobody could load.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { UserId } from "../accounts/Domain.js"
import * as Cell from "../Cell.js"
import { CellData } from "../weather/CellData.js"
import { ColdCells } from "../weather/ColdCells.js"
import { AlertSettings } from "./AlertSettings.js"
import { AlertEvaluator } from "./Evaluator.js"
import { WatchLimitReached, Watches } from "./Ports.js"
import type { WatchRequest } from "./WatchRequest.js"

/**
 * Creates or changes `userId`'s watch of the request's cell (asked from `address`), after loading
 * the cell's history if it is not held; then queues the cell's evaluation.
 */
export const watch = (userId: UserId, request: WatchRequest, address: string) =>
  Effect.gen(function* () {
    const watches = yield* Watches
    const settings = yield* AlertSettings
    const evaluator = yield* AlertEvaluator
    const data = yield* CellData
    const coldCells = yield* ColdCells
    const cell = Cell.fromCoordinates(request.lat, request.lon)
    // Refused before a new cell is loaded for nothing (the upsert keeps the limit exact under races).
    const own = yield* watches.list(userId)
    if (own.length >= settings.watchLimit && !own.some((w) => w.cell.key === cell.key)) {
      return yield* new WatchLimitReached({ limit: settings.watchLimit })
    }
    const loaded = Effect.flatMap(data.heldHistory(cell), (held) => (Option.isSome(held) ? Effect.void : Effect.asVoid(data.history(cell))))
    yield* coldCells.gate({ address, user: Effect.succeed(userId) }, cell, loaded)
    const result = yield* watches.upsert(userId, { ...request, cell }, settings.watchLimit)
    yield* evaluator.trigger(cell)
    return result
  })

/** The 409's detail past the limit. */
export const limitDetail = (limit: number): string => `At most ${limit} watches per user: stop watching a place first.`

/** What a watch or a sent alert is called: its place's label, else its cell's coordinates. */
export const placeName = (label: string | null, cell: Cell.Cell): string => label ?? Cell.coordinateLabel(cell)
