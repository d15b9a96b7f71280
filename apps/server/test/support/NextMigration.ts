import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/*
 * The one migration a next release adds in the rolling-upgrade test (Nginx.test.ts), written as
 * the docs ask a release's migrations to be: expand only. A column on a table every instance reads
 * (users) and on the busiest one (payloads), both nullable without a default (no row is
 * rewritten), and a table of its own: older instances neither read nor write any of it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    alter table users add column upgrade_note text;
    alter table payloads add column upgrade_note text;
    create table upgrade_notes (
      id uuid primary key default gen_random_uuid(),
      note text not null,
      created_at timestamptz not null default now()
    );
  `)
)
