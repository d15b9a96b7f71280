/**
 * The rules, browser-safe: plain functions and data with no IO, no Node built-ins and no `effect`,
 * for pages, the command line and anyone's script. `@climate-grade/core/rules`.
 */
export * as Cell from "./Cell.js"
export * as CivilDate from "./CivilDate.js"
export * as DailySeries from "./weather/DailySeries.js"
export * as Grader from "./grading/Grader.js"
export * as Percentile from "./grading/Percentile.js"
export * as Sample from "./grading/Sample.js"
export * as Baseline from "./trend/Baseline.js"
export * as Ranking from "./trend/Ranking.js"
export * as Spans from "./trend/Spans.js"
export * as Trend from "./trend/Trend.js"
export * as Spells from "./spells/Spells.js"
export * as Views from "./data/Views.js"
export * as PayloadVersion from "./data/PayloadVersion.js"
export * as Words from "./words/Words.js"
export * as Palette from "./words/Palette.js"
export * as RetryAfter from "./RetryAfter.js"
export type { Label } from "./grading/Percentile.js"
export type { Variable } from "./weather/DailySeries.js"
export * as Ties from "./grading/Ties.js"
