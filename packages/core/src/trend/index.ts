export * as Baseline from "./Baseline.js"
export * as Ranking from "./Ranking.js"
export * as Spans from "./Spans.js"
export * as Trend from "./Trend.js"
