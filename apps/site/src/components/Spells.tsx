/**
 * "Spells": the heat waves, cold spells, dry and wet spells of the last two years and the coming
 * days on a timeline, each kind's ten most extreme as a table, and heat-wave and cold-spell days per
 * year as a chart (the trend people can see). A chunk of its own below the grades; its data is the
 * place's `/spells`, shared with the notice at the top of the page.
 *
 * The timeline and the chart are drawings (one SVG each, a path per colour); what they show is also
 * text: the timeline's spells as a list, the chart in its name and as a table on request.
 */
import { useSignal } from "@preact/signals"
import { useEffect, useMemo } from "preact/hooks"
import { addDays, dayNumber } from "../format.js"
import type { Cell } from "../payloads.js"
import { KIND_COLOR, KIND_NAME, type Spell, SPELL_KINDS, type SpellKind, type SpellsPayload, spanWords, spellWords } from "../spells.js"
import { loadSpells, spells } from "../spellsData.js"
import { Section } from "./Section.js"
import { useWidth } from "./useWidth.js"

const ROW = 18
const LABEL = 78

const Timeline = ({ data, today }: { data: SpellsPayload; today: string }) => {
  const [ref, width] = useWidth<HTMLDivElement>(600)
  const from = dayNumber(addDays(today, -730))
  const to = Math.max(dayNumber(data.until), dayNumber(today))
  const span = Math.max(1, to - from + 1)
  const plot = Math.max(100, width - LABEL)
  const x = (day: number) => LABEL + ((day - from) / span) * plot
  const paths = useMemo(() => {
    const d: Record<SpellKind, Array<string>> = { heat: [], cold: [], dry: [], wet: [] }
    for (const s of data.recent) {
      const a = Math.max(from, dayNumber(s.start))
      const b = Math.min(to, dayNumber(s.end)) + 1
      if (b <= a) continue
      const row = SPELL_KINDS.indexOf(s.kind)
      d[s.kind].push(`M${x(a).toFixed(1)} ${row * ROW + 3}h${Math.max(1.5, x(b) - x(a)).toFixed(1)}v${ROW - 6}h${(-Math.max(1.5, x(b) - x(a))).toFixed(1)}z`)
    }
    return d
  }, [data, from, to, plot])
  const height = SPELL_KINDS.length * ROW + 22
  const todayX = x(dayNumber(today))
  const years: Array<number> = []
  for (let y = Number(addDays(today, -730).slice(0, 4)) + 1; y <= Number(data.until.slice(0, 4)); y++) years.push(y)
  return (
    <div ref={ref} class="spell-timeline" dir="ltr">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-hidden="true" focusable="false">
        {SPELL_KINDS.map((k, row) => (
          <g key={k}>
            <text x={0} y={row * ROW + 13} class="spell-axis">
              {KIND_NAME[k]}
            </text>
            <path d={`M${LABEL} ${row * ROW + ROW / 2}H${LABEL + plot}`} class="spell-track" />
            <path d={paths[k].join("")} fill={KIND_COLOR[k]} />
          </g>
        ))}
        {years.map((y) => {
          const at = x(dayNumber(`${y}-01-01`))
          return (
            <g key={y}>
              <path d={`M${at.toFixed(1)} 0V${SPELL_KINDS.length * ROW}`} class="spell-year" />
              <text x={at + 3} y={height - 6} class="spell-axis">
                {y}
              </text>
            </g>
          )
        })}
        <path d={`M${todayX.toFixed(1)} 0V${SPELL_KINDS.length * ROW + 4}`} class="spell-today" />
        <text x={Math.min(todayX + 3, LABEL + plot - 34)} y={height - 6} class="spell-axis spell-today-label">
          today
        </text>
      </svg>
    </div>
  )
}

const TopTable = ({ kind, spells: list, since }: { kind: SpellKind; spells: ReadonlyArray<Spell>; since: string }) => {
  const measure = kind === "heat" || kind === "cold" ? "Peak (°C²)" : kind === "wet" ? "Total (mm)" : null
  if (list.length === 0) return <p class="muted">No {KIND_NAME[kind].toLowerCase()} in the record here.</p>
  return (
    <table class="spell-top">
      <caption>
        {KIND_NAME[kind]}: the {list.length} most extreme here since {since}
      </caption>
      <thead>
        <tr>
          <th scope="col">Rank</th>
          <th scope="col">Dates</th>
          <th scope="col">Days</th>
          {measure !== null && <th scope="col">{measure}</th>}
          {(kind === "heat" || kind === "cold") && <th scope="col">Severity</th>}
        </tr>
      </thead>
      <tbody>
        {list.map((s) => (
          <tr key={s.start} class={s.forecast ? "is-forecast" : ""}>
            <td>{s.rank_peak ?? s.rank_total ?? s.rank_days}</td>
            <th scope="row">
              {spanWords(s.start, s.end)}
              {s.forecast ? " (forecast)" : ""}
            </th>
            <td>{s.days}</td>
            {measure !== null && <td>{(s.peak ?? s.total ?? 0).toFixed(1)}</td>}
            {(kind === "heat" || kind === "cold") && <td>{s.severity}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const CHART_HEIGHT = 140

const YearsChart = ({ data }: { data: SpellsPayload }) => {
  const [ref, width] = useWidth<HTMLDivElement>(600)
  const years = data.years
  const n = years.length
  const max = Math.max(1, ...years.map((y) => Math.max(y.heat_days, y.cold_days)))
  const half = (CHART_HEIGHT - 20) / 2
  const w = width / Math.max(1, n)
  const { cold, heat } = useMemo(() => {
    const heat: Array<string> = []
    const cold: Array<string> = []
    years.forEach((y, i) => {
      const bw = Math.max(1, w - (w > 4 ? 1 : 0)).toFixed(2)
      if (y.heat_days > 0) {
        const h = (y.heat_days / max) * half
        heat.push(`M${(i * w).toFixed(2)} ${(half - h).toFixed(1)}h${bw}v${h.toFixed(1)}h-${bw}z`)
      }
      if (y.cold_days > 0) cold.push(`M${(i * w).toFixed(2)} ${half}h${bw}v${((y.cold_days / max) * half).toFixed(1)}h-${bw}z`)
    })
    return { heat: heat.join(""), cold: cold.join("") }
  }, [years, w, max, half])
  if (n === 0) return null
  const most = (k: "heat_days" | "cold_days") => years.reduce((a, b) => (b[k] > a[k] ? b : a), years[0]!)
  const mh = most("heat_days")
  const mc = most("cold_days")
  const label =
    `Heat-wave days (up) and cold-spell days (down) per year, ${years[0]!.year} to ${years[n - 1]!.year}: ` +
    `most heat-wave days in ${mh.year} (${mh.heat_days}), most cold-spell days in ${mc.year} (${mc.cold_days}).`
  const ticks = years.filter((y) => y.year % (n > 40 ? 20 : 10) === 0)
  return (
    <figure class="spell-years" ref={ref}>
      <svg width={width} height={CHART_HEIGHT} viewBox={`0 0 ${width} ${CHART_HEIGHT}`} role="img" aria-label={label}>
        <path d={heat} fill={KIND_COLOR.heat} />
        <path d={cold} fill={KIND_COLOR.cold} />
        <path d={`M0 ${half}H${width}`} class="spell-track" />
        {ticks.map((y) => {
          const at = years.indexOf(y) * w
          return (
            <text key={y.year} x={Math.min(at, width - 30)} y={CHART_HEIGHT - 4} class="spell-axis">
              {y.year}
            </text>
          )
        })}
      </svg>
      <figcaption class="muted small">{label}</figcaption>
    </figure>
  )
}

export const Spells = ({ cell, today }: { cell: Cell; today: string | null }) => {
  useEffect(() => loadSpells(cell), [cell.lat, cell.lon])
  const kind = useSignal<SpellKind>("heat")
  const listOpen = useSignal(false)
  const state = spells.value
  const data = state?.result?.data ?? null
  const failure = state?.failure ?? null
  const day = today ?? data?.last ?? null
  return (
    <Section
      id="spells"
      title="Heat waves, cold spells, dry and wet spells"
      intro={
        <>
          Heat waves and cold spells by the Excess Heat Factor (three or more days whose mean temperature is above this place's
          hottest 5% of days and above the month before; cold spells the mirror), ranked by their peak. Dry spells: 5 or more days
          under 1 mm; wet spells: 3 or more days of 1 mm or more.
        </>
      }
    >
      <div aria-live="polite" aria-busy={data === null && failure === null}>
        {data === null && failure === null && <p class="muted">Loading the place's spells…</p>}
        {failure !== null && <p class="error-text">The spells could not be loaded: {failure}</p>}
      </div>
      {data !== null && day !== null && (
        <>
          {data.thresholds === null && (
            <p class="muted">The record here holds no 30 whole years yet, so heat waves and cold spells cannot be told.</p>
          )}
          <h3>The last two years and the coming days</h3>
          <Timeline data={data} today={day} />
          {/* The list is drawn only while open: two years of spells are a hundred elements or more,
              which a closed list would add to every page's DOM for nothing. */}
          <details class="spell-list" onToggle={(e) => (listOpen.value = (e.currentTarget as HTMLDetailsElement).open)}>
            <summary>These {data.recent.length} spells as a list</summary>
            {listOpen.value && (
              <ul>
                {data.recent.map((s) => (
                  <li key={`${s.kind}${s.start}`}>{spellWords(s)}</li>
                ))}
              </ul>
            )}
          </details>
          <h3>The most extreme here</h3>
          <fieldset class="toggle spell-kinds">
            <legend class="sr-only">Show the most extreme</legend>
            {SPELL_KINDS.map((k) => (
              <label key={k} class={kind.value === k ? "is-on" : ""}>
                <input
                  type="radio"
                  name="spell-kind"
                  value={k}
                  checked={kind.value === k}
                  onChange={() => {
                    kind.value = k
                  }}
                />
                {KIND_NAME[k]}
              </label>
            ))}
          </fieldset>
          <div class="table-scroll">
            <TopTable kind={kind.value} spells={data.top[kind.value]} since={data.first.slice(0, 4)} />
          </div>
          <h3>Heat-wave and cold-spell days per year</h3>
          <YearsChart data={data} />
        </>
      )}
    </Section>
  )
}
