import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- The payload store holds what the core knows, a token and the JSON; compression is the HTTP
    -- adapter's. The gzip column goes rather than staying as this adapter's storage format: the
    -- table is a cache of what can be rebuilt, a replay from it is compressed on the way out
    -- (~1.1 ms for a 24-month calendar) and then kept by the response index, and keeping gzip
    -- bytes here would mean gunzipping on read only for the HTTP adapter to gzip again. Rows
    -- stay valid: their JSON and token are unchanged.
    alter table payloads drop column gzip;
  `).unprepared
)
