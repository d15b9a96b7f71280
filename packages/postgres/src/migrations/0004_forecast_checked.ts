import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- When the forecast was last fetched or tried: a failed refetch counts, so the upstream is
    -- asked at most hourly while the last forecast (and its stamp) is kept.
    alter table weather_cells add column forecast_checked_at timestamptz null;
    update weather_cells set forecast_checked_at = forecast_stamp;
  `).unprepared
)
