/**
 * `@climate-grade/client`: the Promise surface (docs/architecture.md "Client library"). The rules it
 * acts on are plain functions in their own modules (`@climate-grade/client/Keys`, `Revalidation`,
 * `Pruning`, `Payload`), for workspace code that wants them without the client.
 */
import * as IndexedDbStore from "./IndexedDbStore.js"
import * as MemoryStore from "./MemoryStore.js"
import type { Store } from "./Store.js"

export { type CallOptions, type Client, type ClientOptions, createClient, type Loaded, type Result, type Source } from "./Client.js"
export { BadPayload, type LoadError, NetworkError, RequestRejected, ServerError } from "./Errors.js"
export type { CellInfo } from "./Payload.js"
export { type AccessRecord, QuotaExceeded, StorageFailure, type Store, type StoredEntry } from "./Store.js"
export type { ViewName } from "./Views.js"

export const memoryStore = (options?: MemoryStore.MemoryStoreOptions): Store => MemoryStore.make(options)

/** IndexedDB (database `name`, default "climate-grade-client"); memory where IndexedDB is missing. */
export const indexedDbStore = (name?: string): Store => IndexedDbStore.make(name)
