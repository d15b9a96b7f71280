/**
 * "This month, season and year": how the month, the meteorological season and the year so far rank
 * against the same days of every earlier year of the cell's record, in words, and the warming
 * stripes. A chunk of its own, drawn below the grades; its data (`/trend`, through the client like
 * every other view) is asked for only once it is drawn, so neither slows the grades.
 */
import { PageMessages } from "@climate-grade/core/rules"
import { useSignal } from "@preact/signals"
import { useEffect } from "preact/hooks"
import { dataClient, describeError, type Result } from "../data.js"
import type { Cell, TrendPayload, Units } from "../payloads.js"
import { lang, w } from "../i18n/index.js"
import { periodTexts } from "../trend.js"
import { Section } from "./Section.js"
import { WarmingStripes } from "./WarmingStripes.js"

export const ClimateContext = ({ cell, units }: { cell: Cell; units: Units }) => {
  const trend = useSignal<Result<TrendPayload> | null>(null)
  const failure = useSignal<string | null>(null)
  useEffect(() => {
    let live = true
    trend.value = null
    failure.value = null
    dataClient()
      .view("trend", cell.lat, cell.lon)
      .then(
        (result) => {
          if (live) trend.value = result as Result<TrendPayload>
        },
        async (error: unknown) => {
          const words = await describeError(error)
          if (live) failure.value = words
        }
      )
    return () => {
      live = false
    }
  }, [cell.lat, cell.lon])
  const data = trend.value?.data ?? null
  return (
    <Section
      id="trend"
      title={w("context.title")}
      intro={w("context.intro")}
    >
      <div aria-live="polite" aria-busy={data === null && failure.value === null}>
        {data === null && failure.value === null && <p class="muted">{w("context.loading")}</p>}
        {failure.value !== null && <p class="error-text">{w("context.failed", { why: failure.value })}</p>}
      </div>
      {data !== null && (
        <>
          {trend.value?.source === "stale" && (
            <p class="muted">{PageMessages.t(lang(), "context.stale")}</p>
          )}
          <div class="trend-periods">
            {periodTexts(data, units).map((p) => (
              <div key={p.period} class="trend-period">
                <h3>{p.title}</h3>
                <ul class="trend-sentences">
                  {p.sentences.map((s) => (
                    <li key={s.variable}>{s.text}</li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
          <WarmingStripes trend={data} units={units} />
        </>
      )}
    </Section>
  )
}
