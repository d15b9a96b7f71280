import { HttpApi, OpenApi } from "@effect/platform"
import { AuthGroup, UsersGroup } from "./AccountApi.js"
import { AlertsGroup } from "./AlertsApi.js"
import { DataGroup } from "./DataApi.js"
import { OAuthGroup } from "./OAuthApi.js"
import { PlacesGroup } from "./PlacesApi.js"
import { SystemGroup } from "./SystemApi.js"

/** The API prefix below `BASE_PATH` (SPEC.md "Versioning"). */
export const API_PREFIX = "/api/v2"

export class Api extends HttpApi.make("climate-grade")
  .add(SystemGroup)
  .add(AuthGroup)
  .add(UsersGroup)
  .add(OAuthGroup)
  .add(DataGroup)
  .add(PlacesGroup)
  .add(AlertsGroup)
  .prefix(API_PREFIX)
  .annotateContext(
    OpenApi.annotations({
      title: "climate-grade",
      version: "2",
      description: "How a place's weather ranks against its own recorded history, by percentile."
    })
  ) {}
