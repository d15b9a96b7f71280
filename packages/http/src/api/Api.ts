import { HttpApi, OpenApi } from "@effect/platform"
import { AuthGroup, UsersGroup } from "./AccountApi.js"
import { AlertsGroup } from "./AlertsApi.js"
import { API_PREFIX } from "./ApiPrefix.js"
import { CardGroup } from "./CardApi.js"
import { DataGroup } from "./DataApi.js"
import { OAuthGroup } from "./OAuthApi.js"
import { PlacesGroup } from "./PlacesApi.js"
import * as Errors from "./Errors.js"
import * as StorableInput from "./StorableInput.js"
import { SystemGroup } from "./SystemApi.js"

export { API_PREFIX }

interface JsonSchema {
  readonly $ref?: string
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly description?: string
}
interface Operation {
  readonly responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, unknown> }
}

const DECODE_ERROR = "HttpApiDecodeError"

/**
 * The platform lists its decode error on every operation, as a 400 with a body of its own. Here
 * DecodeErrors answers it as `{detail}`, and only a request body can fail to decode (every path
 * and query value is a string, checked by hand for a 400 in words), and every route that takes
 * a body declares its 400 (Errors.StateChangeRefusalsSchema). So the decode error is dropped
 * from every 400, and a 400 that was only the decode error, which no route answers, goes with it.
 */
export const withoutDecodeError = (spec: Record<string, unknown>): Record<string, unknown> => {
  const doc = structuredClone(spec) as unknown as Document
  const ref = `#/components/schemas/${DECODE_ERROR}`
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item)) {
      const bad = operation.responses["400"]
      const schema = bad?.content?.["application/json"]?.schema
      if (bad === undefined || schema === undefined) continue
      const kept = (schema.anyOf ?? [schema]).filter((member) => member.$ref !== ref)
      if (kept.length === 0) {
        delete operation.responses["400"]
        continue
      }
      const body = kept.length === 1 ? kept[0]! : { anyOf: kept }
      operation.responses["400"] = {
        description: body.description ?? bad.description,
        content: { "application/json": { schema: body } }
      }
    }
  }
  // The decode error's schemas, and what only they used, once nothing refers to them.
  for (const name of [DECODE_ERROR, "Issue", "PropertyKey"]) {
    const { [name]: _, ...others } = doc.components.schemas
    if (!JSON.stringify({ paths: doc.paths, others }).includes(`"#/components/schemas/${name}"`)) {
      delete doc.components.schemas[name]
    }
  }
  return doc as unknown as Record<string, unknown>
}

export class Api extends HttpApi.make("climate-grade")
  .add(SystemGroup)
  .add(AuthGroup)
  .add(UsersGroup)
  .add(OAuthGroup)
  .add(DataGroup)
  .add(PlacesGroup)
  .add(AlertsGroup)
  .add(CardGroup)
  .prefix(API_PREFIX)
  .annotateContext(
    OpenApi.annotations({
      title: "climate-grade",
      version: "2",
      description: "How a place's weather ranks against its own recorded history, by percentile.",
      transform: (spec) => Errors.documented(StorableInput.documented(withoutDecodeError(spec)))
    })
  ) {}
