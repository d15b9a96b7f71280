import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- Built payloads, replayed while their freshness token holds; the gzip is kept so a replay never compresses.
    create table payloads (
      cell_key text not null,
      view text not null,
      params text not null,
      token text not null,
      json bytea not null,
      gzip bytea not null,
      created_at timestamptz not null default now(),
      primary key (cell_key, view, params)
    );
  `).unprepared
)
