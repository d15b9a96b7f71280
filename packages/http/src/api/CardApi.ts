import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import * as DataQuery from "./DataQuery.js"
import { BadRequestSchema, DatabaseFaultSchema, NotFoundSchema, ServiceUnavailableSchema, TooManyRequestsSchema } from "./Errors.js"


export class CardGroup extends HttpApiGroup.make("card")
  .add(
    HttpApiEndpoint.get("card", "/card.png")
      .setUrlParams(
        Schema.Struct({
          ...DataQuery.Where,
          units: DataQuery.units,
          lang: Schema.optional(
            Schema.Literal("en", "de", "fr", "es", "pt", "ja", "ar").annotations({
              description: "The card's language; without it, Accept-Language's best supported language, else English"
            })
          )
        })
      )
      .addSuccess(
        HttpApiSchema.Uint8Array({ contentType: "image/png" }).annotations({
          description: "A 1200 × 630 PNG: the place, the date, and today's three grades (value, label in words, percentile)"
        })
      )
      .addSuccess(
        HttpApiSchema.Empty(304).annotations({ description: "If-None-Match matched: no body; ETag and Cache-Control as on the 200" })
      )
      .annotate(
        OpenApi.Description,
        "A picture of a place's grades today, for link previews (og:image). Drawn only from what the server already " +
          "holds for the cell, never from the weather source: a cell whose history and today's forecast are not held " +
          "answers 404. The ETag follows the grade's freshness token; Cache-Control: no-cache."
      )
  )
  // lat/lon missing or malformed, units unknown.
  .addError(BadRequestSchema)
  // Nothing held for the cell today.
  .addError(NotFoundSchema)
  // The client's drawings under way at their limit (Retry-After).
  .addError(TooManyRequestsSchema)
  // The database down, or the card not drawn in time, or too many waiting (all with Retry-After).
  .addError(ServiceUnavailableSchema)
  // The database refused a statement (a damaged table): logged (AppMiddleware).
  .addError(DatabaseFaultSchema) {}
