export * as Demo from "./Demo.js"
export * as Gazetteer from "./Gazetteer.js"
export * as Inbox from "./Inbox.js"
