import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- A cell's label lookup in progress, so instances sharing the database make one lookup per
    -- cell. A row holds no connection (the lookup may wait in the geocoder's one-a-second queue);
    -- one older than a minute was left by a process that died and may be taken over.
    create table geocoder_claims (
      cell_key text primary key,
      claimed_at bigint not null
    );
  `).unprepared
)
