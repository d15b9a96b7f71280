import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/*
 * Alerts per heat wave and cold spell. Expand only: older instances keep working beside newer ones
 * (they read only the daily kinds of a watch, and never these tables). A spell's alert and its
 * message live in tables of their own, so no row an older instance reads or claims changes shape.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    alter table alert_watches drop constraint if exists alert_watches_kinds_check;
    alter table alert_watches add constraint alert_watches_kinds_check
      check (cardinality(kinds) > 0 and kinds <@ array['heat', 'cold', 'wet', 'heatwave', 'coldspell']);

    -- One alert per watch and spell: a spell overlapping one alerted is that spell moved by a newer
    -- forecast (start_date/end_date: its days as last seen). The watch's row, locked while a spell
    -- is checked and recorded, is what makes instances evaluating one cell at once record it once.
    create table spell_alerts (
      id uuid primary key default gen_random_uuid(),
      watch_id uuid not null references alert_watches (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      kind text not null check (kind in ('heatwave', 'coldspell')),
      start_date date not null,
      end_date date not null check (end_date >= start_date),
      first_start date not null,
      severity text not null check (severity in ('low', 'severe', 'extreme')),
      rank integer not null,
      of integer not null,
      content text not null,
      delivery text not null check (delivery in ('queued', 'muted', 'off')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index spell_alerts_watch_idx on spell_alerts (watch_id, kind, end_date);
    create index spell_alerts_user_created_idx on spell_alerts (user_id, created_at desc);

    -- Their messages, as alert_outbox holds the daily alerts' (same columns, same rules).
    create table spell_alert_outbox (
      id bigint generated always as identity primary key,
      alert_id uuid not null unique references spell_alerts (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      content text not null,
      status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'dropped')),
      attempts integer not null default 0,
      due_at timestamptz not null default now(),
      claimed_until timestamptz null,
      last_error text null,
      created_at timestamptz not null default now(),
      sent_at timestamptz null
    );
    create index spell_alert_outbox_pending_idx on spell_alert_outbox (due_at) where status = 'pending';
  `).unprepared
)
