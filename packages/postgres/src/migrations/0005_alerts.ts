import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    -- A user's watched places: one per user and cell.
    create table alert_watches (
      id uuid primary key default gen_random_uuid(),
      user_id uuid not null references users (id) on delete cascade,
      cell_key text not null,
      cell_lat double precision not null,
      cell_lon double precision not null,
      lat double precision not null,
      lon double precision not null,
      kinds text[] not null check (cardinality(kinds) > 0 and kinds <@ array['heat', 'cold', 'wet']),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint alert_watches_user_cell_key unique (user_id, cell_key)
    );
    create index alert_watches_cell_idx on alert_watches (cell_key);

    -- One alert per (watch, date, kind), ever: the unique constraint is what makes two instances
    -- evaluating one cell at once create it once.
    create table alerts (
      id uuid primary key default gen_random_uuid(),
      watch_id uuid not null references alert_watches (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      date date not null,
      kind text not null check (kind in ('heat', 'cold', 'wet')),
      variable text not null,
      value double precision null,
      unit text not null,
      percentile double precision null,
      label text null,
      n integer not null,
      content text not null,
      -- queued: its message is in the outbox; muted: the user could not receive it then; off:
      -- delivery was not configured.
      delivery text not null check (delivery in ('queued', 'muted', 'off')),
      created_at timestamptz not null default now(),
      constraint alerts_watch_date_kind_key unique (watch_id, date, kind)
    );
    create index alerts_user_created_idx on alerts (user_id, created_at desc);

    -- The transactional outbox: written with its alert, in one transaction; a message leaves it
    -- (sent, failed, dropped) only after an attempt's outcome is known.
    create table alert_outbox (
      id bigint generated always as identity primary key,
      alert_id uuid not null unique references alerts (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      content text not null,
      status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'dropped')),
      attempts integer not null default 0,
      due_at timestamptz not null default now(),
      -- A sending attempt's lease: nobody else takes the message before it ends.
      claimed_until timestamptz null,
      last_error text null,
      created_at timestamptz not null default now(),
      sent_at timestamptz null
    );
    create index alert_outbox_pending_idx on alert_outbox (due_at) where status = 'pending';
  `).unprepared
)
