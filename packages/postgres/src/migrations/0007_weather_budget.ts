import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- Open-Meteo cost units spent per UTC day (days since the epoch), by every instance
    -- (core UpstreamBudget); a new cell's history is reserved here before it is fetched.
    create table weather_budget (
      day integer primary key,
      spent double precision not null
    );
  `).unprepared
)
