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
import { PageMessages } from "@climate-grade/core/rules"
import { addDays, dayNumber, formatCount } from "../format.js"
import { lang } from "../i18n/index.js"
import type { Cell } from "../payloads.js"
import { KIND_COLOR, kindName, type Spell, SPELL_KINDS, type SpellKind, type SpellsPayload, spanWords, spellWords } from "../spells.js"
import { loadSpells, spells } from "../spellsData.js"
import { Section } from "./Section.js"
import { useWidth } from "./useWidth.js"

/** The core's words in the page's language. */
const t = (key: PageMessages.Key, values?: PageMessages.Values): string => PageMessages.t(lang(), key, values)

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
              {kindName(k)}
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
          {t("spells.today")}
        </text>
      </svg>
    </div>
  )
}

const TopTable = ({ kind, spells: list, since }: { kind: SpellKind; spells: ReadonlyArray<Spell>; since: string }) => {
  const measure = kind === "heat" || kind === "cold" ? t("spells.col.peak") : kind === "wet" ? t("spells.col.total") : null
  if (list.length === 0) return <p class="muted">{t(`spells.none.${kind}`)}</p>
  return (
    <table class="spell-top">
      <caption>
        {t("spells.caption", { kinds: kindName(kind), n: list.length, since })}
      </caption>
      <thead>
        <tr>
          <th scope="col">{t("spells.col.rank")}</th>
          <th scope="col">{t("spells.col.dates")}</th>
          <th scope="col">{t("spells.col.days")}</th>
          {measure !== null && <th scope="col">{measure}</th>}
          {(kind === "heat" || kind === "cold") && <th scope="col">{t("spells.col.severity")}</th>}
        </tr>
      </thead>
      <tbody>
        {list.map((s) => (
          <tr key={s.start} class={s.forecast ? "is-forecast" : ""}>
            <td>{s.rank_peak ?? s.rank_total ?? s.rank_days}</td>
            <th scope="row">
              {spanWords(s.start, s.end)}
              {s.forecast ? ` ${t("spells.forecast")}` : ""}
            </th>
            <td>{s.days}</td>
            {measure !== null && <td>{formatCount(s.peak ?? s.total ?? 0, 1)}</td>}
            {(kind === "heat" || kind === "cold") && <td>{s.severity === undefined ? "" : t(`severity.${s.severity}`)}</td>}
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
  const label = t("spells.chart", {
    from: years[0]!.year,
    to: years[n - 1]!.year,
    heatYear: mh.year,
    heat: mh.heat_days,
    coldYear: mc.year,
    cold: mc.cold_days
  })
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
      title={t("spells.title")}
      intro={t("spells.intro")}
    >
      <div aria-live="polite" aria-busy={data === null && failure === null}>
        {data === null && failure === null && <p class="muted">{t("spells.loading")}</p>}
        {failure !== null && <p class="error-text">{t("spells.failed", { why: failure })}</p>}
      </div>
      {data !== null && day !== null && (
        <>
          {data.thresholds === null && (
            <p class="muted">{t("spells.no-thresholds")}</p>
          )}
          <h3>{t("spells.recent")}</h3>
          <Timeline data={data} today={day} />
          {/* The list is drawn only while open: two years of spells are a hundred elements or more,
              which a closed list would add to every page's DOM for nothing. */}
          <details class="spell-list" onToggle={(e) => (listOpen.value = (e.currentTarget as HTMLDetailsElement).open)}>
            <summary>
              {t(new Intl.PluralRules(lang()).select(data.recent.length) === "one" ? "spells.as-list.one" : "spells.as-list", {
                n: data.recent.length
              })}
            </summary>
            {listOpen.value && (
              <ul>
                {data.recent.map((s) => (
                  <li key={`${s.kind}${s.start}`}>{spellWords(s)}</li>
                ))}
              </ul>
            )}
          </details>
          <h3>{t("spells.top")}</h3>
          <fieldset class="toggle spell-kinds">
            <legend class="sr-only">{t("spells.show-top")}</legend>
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
                {kindName(k)}
              </label>
            ))}
          </fieldset>
          <div class="table-scroll">
            <TopTable kind={kind.value} spells={data.top[kind.value]} since={data.first.slice(0, 4)} />
          </div>
          <h3>{t("spells.per-year")}</h3>
          <YearsChart data={data} />
        </>
      )}
    </Section>
  )
}
