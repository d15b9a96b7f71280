import * as Metric from "effect/Metric"

/** Open-Meteo cost units spent: max(1, variables / 10 × days / 14) per call. */
export const costUnits = Metric.counter("weather_cost_units", {
  description: "Open-Meteo cost units spent (max(1, variables/10 × days/14) per call)"
})

/** Calls made to each upstream, whatever their outcome. */
export const upstreamCalls = Metric.counter("weather_upstream_calls", { description: "Calls to the weather and geocoder upstreams" })

export const costOf = (variables: number, days: number): number => Math.max(1, (variables / 10) * (days / 14))
