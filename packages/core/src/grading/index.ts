export * as Grader from "./Grader.js"
export * as Percentile from "./Percentile.js"
export * as Sample from "./Sample.js"
export * as Ties from "./Ties.js"
