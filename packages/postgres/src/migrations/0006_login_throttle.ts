import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- Sign-in attempts counted per account (account:<e-mail>) and per client address
    -- (address:<ip>) in fixed windows (core LoginThrottle), shared by every instance.
    -- Times are epoch milliseconds from the service's clock, like the rule that reads them.
    create table login_attempts (
      key text primary key,
      window_start bigint not null,
      count integer not null
    );
    create index login_attempts_window_start on login_attempts (window_start);
  `).unprepared
)
