/**
 * The notice at the top of a place: a severe or extreme heat wave or cold spell on or coming, in words
 * with its standing ("A severe heat wave from Thursday: it would be the 4th hottest here since 1940 if
 * the forecast holds."). A chunk of its own, drawn once the grades show; it asks for the place's spells,
 * which the "Spells" section below shares. Nothing is shown while they load or when there is none.
 */
import { useEffect } from "preact/hooks"
import type { Cell } from "../payloads.js"
import { w } from "../i18n/index.js"
import { spellNotice } from "../spells.js"
import { loadSpells, spells } from "../spellsData.js"

export const SpellNotice = ({ cell, today }: { cell: Cell; today: string | null }) => {
  useEffect(() => loadSpells(cell), [cell.lat, cell.lon])
  const data = spells.value?.result?.data ?? null
  if (data === null || today === null) return null
  const told = spellNotice(data, today)
  if (told === null) return null
  return (
    <p class={`notice spell-notice spell-${told.spell.kind}`} role="status">
      <strong>{told.text}</strong> <a href="#spells">{w("spells.more")}</a>
    </p>
  )
}
