import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- Place search answers (GET /places), kept 30 days by normalised query so a repeated
    -- query costs no geocoder call. places_json: the answer as JSON text ({label, lat, lon}[]).
    create table place_searches (
      query text primary key,
      places_json text not null,
      fetched_at timestamptz not null
    );
    create index place_searches_fetched_at on place_searches (fetched_at);
  `).unprepared
)
