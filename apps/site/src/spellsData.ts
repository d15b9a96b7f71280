/**
 * The place's spells (`/spells`, through the client like every other view), asked for once per cell
 * after the grades show and shared by the notice at the top of the page and the "Spells" section.
 */
import { signal } from "@preact/signals"
import { dataClient, describeError, type Result } from "./data.js"
import type { Cell } from "./payloads.js"
import type { SpellsPayload } from "./spells.js"

export interface SpellsState {
  readonly key: string
  readonly result: Result<SpellsPayload> | null
  readonly failure: string | null
}

export const spells = signal<SpellsState | null>(null)

/** Loads the cell's spells unless they are loaded or loading already. */
export const loadSpells = (cell: Cell) => {
  const key = `${cell.lat},${cell.lon}`
  if (spells.value?.key === key) return
  spells.value = { key, result: null, failure: null }
  dataClient()
    .view("spells", cell.lat, cell.lon)
    .then(
      (result) => {
        if (spells.value?.key === key) spells.value = { key, result: result as Result<SpellsPayload>, failure: null }
      },
      async (error: unknown) => {
        const words = await describeError(error)
        if (spells.value?.key === key) spells.value = { key, result: null, failure: words }
      }
    )
}
