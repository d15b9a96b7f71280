import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type { Cell } from "../Cell.js"

/**
 * Cells whose forecast was just refetched from the upstream, published by CellData when this
 * service is present; alerts evaluate a watched cell after each refetch.
 */
export class ForecastEvents extends Context.Tag("@climate-grade/core/ForecastEvents")<ForecastEvents, PubSub.PubSub<Cell>>() {}

/** Publishing never waits: a slow subscriber loses the oldest cells, which the hourly pass covers. */
export const layer = Layer.effect(ForecastEvents, PubSub.sliding<Cell>(1024))
