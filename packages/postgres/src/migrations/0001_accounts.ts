import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    create table users (
      id uuid primary key default gen_random_uuid(),
      email text not null,
      hashed_password text not null,
      is_active boolean not null default true,
      is_superuser boolean not null default false,
      is_verified boolean not null default false,
      oauth_only boolean not null default false,
      chat_id text null,
      chat_dm boolean not null default false,
      created_at timestamptz not null default now()
    );
    create unique index users_email_key on users (lower(email));

    create table oauth_accounts (
      id uuid primary key default gen_random_uuid(),
      user_id uuid not null references users (id) on delete cascade,
      provider text not null check (provider in ('chat', 'idp')),
      subject text not null,
      email text null,
      created_at timestamptz not null default now(),
      constraint oauth_accounts_provider_subject_key unique (provider, subject),
      constraint oauth_accounts_user_provider_key unique (user_id, provider)
    );

    create table sessions (
      token_hash text primary key,
      user_id uuid not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    );
    create index sessions_user_id_idx on sessions (user_id);

    create table audit_log (
      id bigint generated always as identity primary key,
      created_at timestamptz not null default now(),
      activity text not null,
      data jsonb not null
    );

    -- Service-wide settings, e.g. the generated AUTH_SECRET when none is configured.
    create table settings (
      key text primary key,
      value text not null
    );
  `).unprepared
)
