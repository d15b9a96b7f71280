import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { GeocoderQueue, Places } from "@climate-grade/core"
import * as Schema from "effect/Schema"
import {
  BadGatewaySchema,
  BadRequestSchema,
  DatabaseFaultSchema,
  GatewayTimeoutSchema,
  ServiceUnavailableSchema,
  TooManyRequestsSchema
} from "./Errors.js"

/** Checked by hand (PlacesHttp) so every 400 says what is wrong with `q`. */
const q = Schema.optional(
  Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({
    description: `A place name or address, 1 to ${Places.MAX_QUERY_LENGTH} characters`
  })
)

export class PlacesGroup extends HttpApiGroup.make("places")
  .add(
    HttpApiEndpoint.get("places", "/places")
      .setUrlParams(Schema.Struct({ q }))
      .addSuccess(Places.PlacesPayload)
      .annotate(
        OpenApi.Description,
        "Places matching a name, at most 5, from Nominatim (OpenStreetMap). Answers are kept 30 days by normalised query " +
          "(trimmed, blanks collapsed, lower case), so a repeated search costs no upstream call. Search on submit: " +
          "Nominatim's usage policy forbids autocomplete. Searches wait their turn at Nominatim (one call a second) client " +
          `by client; a client with ${GeocoderQueue.SEARCHES_PER_CLIENT} searches waiting is answered 429 with Retry-After, ` +
          `and with ${GeocoderQueue.SEARCHES_WAITING} searches of all clients waiting, 503 with Retry-After. A search whose ` +
          "request closed leaves the queue without calling Nominatim."
      )
  )
  .addError(BadRequestSchema)
  // The client has its bound of searches waiting for the geocoder already (Retry-After).
  .addError(TooManyRequestsSchema)
  .addError(ServiceUnavailableSchema)
  // Searches are kept in the database: a refusal there is 500, logged (AppMiddleware).
  .addError(DatabaseFaultSchema)
  .addError(BadGatewaySchema)
  .addError(GatewayTimeoutSchema) {}
