export * as Metrics from "./Metrics.js"
export * as Nominatim from "./Nominatim.js"
export * as OpenMeteo from "./OpenMeteo.js"
export * as Upstream from "./Upstream.js"
