import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- Each client network's and signed-in user's reservations for new cells per UTC day (core
    -- UpstreamBudget's shares, keys 'network:…' and 'user:…'), beside the day's total in
    -- weather_budget; days gone by are deleted as new ones begin.
    create table weather_budget_shares (
      day integer not null,
      spender text not null,
      spent double precision not null,
      primary key (day, spender)
    );

    -- New cells loading now, one row per request holding a client network's slot (core
    -- ColdCells), so instances sharing the database share each client's limit. A row is a lease
    -- (epoch ms): renewed while its load runs, deleted when it ends, and past its expiry it counts
    -- for nothing (an instance that died leaves rows that lapse on their own).
    create table cold_cell_slots (
      id bigint generated always as identity primary key,
      client text not null,
      cell_key text not null,
      expires_at bigint not null
    );
    create index cold_cell_slots_client on cold_cell_slots (client);
    create index cold_cell_slots_expires_at on cold_cell_slots (expires_at);
  `).unprepared
)
