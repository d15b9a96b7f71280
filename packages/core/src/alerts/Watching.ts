/**
 * Watching a place (CONTRACT.md §9): one watch per user and cell (watching the cell again replaces
 * its kinds and keeps its id), at most `watchLimit` per user, and a watch created or changed is
 * evaluated at once: queued for the evaluator, which may fetch a cell's history it does not hold
 * yet (a cold cell's history can take seconds, so the answer does not wait for it).
 */
import * as Effect from "effect/Effect"
import type { UserId } from "../accounts/Domain.js"
import * as Cell from "../Cell.js"
import { AlertSettings } from "./AlertSettings.js"
import { AlertEvaluator } from "./Evaluator.js"
import { Watches } from "./Ports.js"
import type { WatchRequest } from "./WatchRequest.js"

/** Creates or changes the user's watch of the request's cell, then queues the cell's evaluation. */
export const watch = (userId: UserId, request: WatchRequest) =>
  Effect.gen(function* () {
    const watches = yield* Watches
    const settings = yield* AlertSettings
    const evaluator = yield* AlertEvaluator
    const cell = Cell.fromCoordinates(request.lat, request.lon)
    const result = yield* watches.upsert(userId, { ...request, cell }, settings.watchLimit)
    yield* evaluator.trigger(cell, true)
    return result
  })

/** The 409's detail past the limit. */
export const limitDetail = (limit: number): string => `At most ${limit} watches per user: stop watching a place first.`

/** What a watch or a sent alert is called: its place's label, else its cell's coordinates. */
export const placeName = (label: string | null, cell: Cell.Cell): string => label ?? Cell.coordinateLabel(cell)
