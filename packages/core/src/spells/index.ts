export * as Spells from "./Spells.js"
