export * as App from "./App.js"
export * as AppConfig from "./AppConfig.js"
