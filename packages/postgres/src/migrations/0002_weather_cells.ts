import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- One row per 0.25° cell: the whole history in a compact binary form (SeriesCodec), not a row per day.
    create table weather_cells (
      cell_key text primary key,
      lat double precision not null,
      lon double precision not null,
      timezone text null,
      label text null,
      history bytea null,
      history_checked_at timestamptz null,
      forecast bytea null,
      forecast_stamp timestamptz null,
      updated_at timestamptz not null default now()
    );
  `).unprepared
)
