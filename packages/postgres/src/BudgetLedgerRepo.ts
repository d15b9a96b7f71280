import { SqlClient } from "@effect/sql"
import { UpstreamBudget } from "@climate-grade/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * `UpstreamBudget.BudgetLedger` over one row per UTC day. A reservation is one upsert whose
 * update only happens while the total stays within the limit (PostgreSQL locks the row for it),
 * so instances racing for the last units cannot both get them.
 *
 * The statements leave any surrounding transaction: a reservation is made inside a cell's claim
 * (a transaction that lasts as long as the upstream call), and the day's row must not stay
 * locked, blocking every other instance's reservation, until that claim commits.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const outsideTransaction = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.mapInputContext(
      effect,
      (context: Context.Context<never>): Context.Context<never> => Context.omit(SqlClient.TransactionConnection)(context)
    )
  return UpstreamBudget.BudgetLedger.of({
    reserve: (day, units, limit) =>
      limit !== null && units > limit
        ? Effect.succeedNone
        : sql<{ spent: number }>`
            insert into weather_budget as b (day, spent) values (${day}, ${units})
            on conflict (day) do update set spent = b.spent + excluded.spent
              where ${limit}::float8 is null or b.spent + excluded.spent <= ${limit}::float8
            returning spent`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => Number(r.spent))),
            outsideTransaction,
            Effect.orDie,
            Effect.withSpan("BudgetLedger.reserve")
          ),
    refund: (day, units) =>
      sql`update weather_budget set spent = greatest(0, spent - ${units}) where day = ${day}`.pipe(
        Effect.asVoid,
        outsideTransaction,
        Effect.orDie
      )
  })
})

export const layer = Layer.effect(UpstreamBudget.BudgetLedger, make)
