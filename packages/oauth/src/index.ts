export * as ProviderExchange from "./ProviderExchange.js"
