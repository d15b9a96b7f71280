import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/*
 * How a user's direct messages speak: the language of the page they last signed in from and the
 * units they last picked on the site. Expand only: two nullable columns an older instance never
 * names (it selects its columns by name), null meaning English and metric as before.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    alter table users add column if not exists lang text null
      check (lang in ('en', 'de', 'fr', 'es', 'pt', 'ja', 'ar'));
    alter table users add column if not exists units text null
      check (units in ('metric', 'imperial'));
  `).unprepared
)
