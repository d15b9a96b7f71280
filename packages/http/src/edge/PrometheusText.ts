/**
 * Every Effect `Metric` of the process in the Prometheus text exposition format (0.0.4), rendered
 * from `Metric.snapshot`. Rendering the snapshot ourselves is ~80 lines and no dependency; the
 * OpenTelemetry route (`@effect/opentelemetry`, the SDK's metrics reader and the Prometheus
 * exporter) would add five packages to say the same thing. Whatever metric any package defines
 * (packages/weather's upstream calls, cost units and budget included) appears here with no wiring.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type * as MetricKey from "effect/MetricKey"
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** Metric and label names may hold only [a-zA-Z0-9_:] and must not start with a digit. */
const metricName = (name: string) => {
  const clean = name.replace(/[^a-zA-Z0-9_:]/g, "_")
  return /^[0-9]/.test(clean) ? `_${clean}` : clean
}
const labelName = (name: string) => metricName(name).replace(/:/g, "_")

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

export const number = (value: number | bigint) => {
  if (typeof value === "bigint") return value.toString()
  if (Number.isNaN(value)) return "NaN"
  if (value === Infinity) return "+Inf"
  if (value === -Infinity) return "-Inf"
  return String(value)
}

/** Labels in name order, so one series always renders the same way. */
export const labels = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.length === 0
    ? ""
    : `{${[...pairs]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${labelName(k)}="${escapeLabel(v)}"`)
        .join(",")}}`

interface Family {
  readonly type: "counter" | "gauge" | "histogram" | "summary"
  readonly help: string
  readonly lines: Array<string>
}

const sample = (
  family: Family,
  name: string,
  tags: ReadonlyArray<readonly [string, string]>,
  value: number | bigint
) => family.lines.push(`${name}${labels(tags)} ${number(value)}`)

const keyOrder = (key: MetricKey.MetricKey.Untyped) => `${key.name}{${key.tags.map((t) => `${t.key}=${t.value}`).join(",")}}`

/** Renders a snapshot; metrics of one name (a tagged family) are grouped under one TYPE line. */
export const render = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, Family>()
  const familyOf = (key: MetricKey.MetricKey.Untyped, type: Family["type"]) => {
    const name = metricName(key.name)
    let family = families.get(name)
    if (family === undefined) {
      family = { type, help: Option.getOrElse(key.description, () => key.name), lines: [] }
      families.set(name, family)
    }
    return { name, family }
  }
  // Sorted by name and tags, so that the same metrics always render in the same order.
  const sorted = [...pairs].sort((a, b) => keyOrder(a.metricKey).localeCompare(keyOrder(b.metricKey)))
  for (const { metricKey: key, metricState: state } of sorted) {
    const tags = key.tags.map((t) => [t.key, t.value] as const)
    if (MetricState.isCounterState(state)) {
      const { family, name } = familyOf(key, "counter")
      sample(family, name, tags, state.count)
    } else if (MetricState.isGaugeState(state)) {
      const { family, name } = familyOf(key, "gauge")
      sample(family, name, tags, state.value)
    } else if (MetricState.isFrequencyState(state)) {
      // A frequency counts occurrences of each string: one counter sample per string.
      const { family, name } = familyOf(key, "counter")
      for (const [value, count] of state.occurrences) sample(family, name, [...tags, ["key", value]], count)
    } else if (MetricState.isHistogramState(state)) {
      const { family, name } = familyOf(key, "histogram")
      let sawInfinity = false
      // Effect's buckets are already cumulative, as Prometheus wants them.
      for (const [boundary, count] of state.buckets) {
        sawInfinity ||= boundary === Infinity
        sample(family, `${name}_bucket`, [...tags, ["le", number(boundary)]], count)
      }
      if (!sawInfinity) sample(family, `${name}_bucket`, [...tags, ["le", "+Inf"]], state.count)
      sample(family, `${name}_sum`, tags, state.sum)
      sample(family, `${name}_count`, tags, state.count)
    } else if (MetricState.isSummaryState(state)) {
      const { family, name } = familyOf(key, "summary")
      for (const [quantile, value] of state.quantiles) {
        if (Option.isSome(value)) sample(family, name, [...tags, ["quantile", String(quantile)]], value.value)
      }
      sample(family, `${name}_sum`, tags, state.sum)
      sample(family, `${name}_count`, tags, state.count)
    }
  }
  const out: Array<string> = []
  for (const [name, family] of [...families].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`, ...family.lines)
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`
}

/** The exposition of every metric the process holds now. */
export const exposition: Effect.Effect<string> = Effect.map(Metric.snapshot, render)
