export * as Commands from "./Commands.js"
export * as Csv from "./Csv.js"
export { run } from "./Run.js"
