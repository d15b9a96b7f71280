import { SqlClient, SqlSchema } from "@effect/sql"
import { UpstreamBudget } from "@climate-grade/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A `double precision` total: a number from node-postgres and PGlite alike. */
const Spent = Schema.Struct({ spent: Schema.Number })

/** A limit passed: ends the reservation's transaction, which takes back what it added. */
class Refused extends Data.TaggedError("Refused")<{ readonly key: string | null }> {}

/**
 * `UpstreamBudget.BudgetLedger` over one row per UTC day (`weather_budget`, the day's total) and
 * one per day and share (`weather_budget_shares`). Each row is added to by an upsert whose update
 * only happens while the row stays within its limit (PostgreSQL locks the row for it), so
 * instances racing for the last units cannot both get them; a reservation touches its shares and
 * then the day, in `UpstreamBudget.refusal`'s order, in one transaction that is rolled back at the
 * first limit passed. Every transaction locks rows in that one order (shares sorted, the day
 * last), so two reservations cannot deadlock.
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

  /** Adds to the day's total unless past `limit`; the total after it, or undefined when refused. */
  const addToDayRow = SqlSchema.findOne({
    Request: Schema.Struct({ day: Schema.Number, units: Schema.Number, limit: Schema.NullOr(Schema.Number) }),
    Result: Spent,
    execute: ({ day, limit, units }) => sql`
        insert into weather_budget as b (day, spent) values (${day}, ${units})
        on conflict (day) do update set spent = b.spent + excluded.spent
          where ${limit}::float8 is null or b.spent + excluded.spent <= ${limit}::float8
        returning spent`
  })
  const addToDay = (day: number, units: number, limit: number | null) =>
    Effect.map(Effect.orDie(addToDayRow({ day, units, limit })), (row) => Option.getOrUndefined(Option.map(row, (r) => r.spent)))

  const addToShareRow = SqlSchema.findOne({
    Request: Schema.Struct({ day: Schema.Number, key: Schema.String, units: Schema.Number, limit: Schema.NullOr(Schema.Number) }),
    Result: Spent,
    execute: ({ day, key, limit, units }) => sql`
        insert into weather_budget_shares as s (day, spender, spent) values (${day}, ${key}, ${units})
        on conflict (day, spender) do update set spent = s.spent + excluded.spent
          where ${limit}::float8 is null or s.spent + excluded.spent <= ${limit}::float8
        returning spent`
  })
  const addToShare = (day: number, key: string, units: number, limit: number | null) =>
    Effect.map(Effect.orDie(addToShareRow({ day, key, units, limit })), Option.isSome)

  /** What a share (or, for null, the day) has spent: read after a refusal, to say why. */
  const spentRow = SqlSchema.findOne({
    Request: Schema.Struct({ day: Schema.Number, key: Schema.NullOr(Schema.String) }),
    Result: Spent,
    execute: ({ day, key }) =>
      key === null
        ? sql`select spent from weather_budget where day = ${day}`
        : sql`select spent from weather_budget_shares where day = ${day} and spender = ${key}`
  })
  const spentBy = (day: number, key: string | null) =>
    Effect.map(Effect.orDie(spentRow({ day, key })), (row) => Option.match(row, { onNone: () => 0, onSome: (r) => r.spent }))

  const reserve = (day: number, units: number, limits: UpstreamBudget.Limits) =>
    Effect.gen(function* () {
      // A first row is inserted whatever its limit, so a reservation larger than a limit is refused
      // before it is tried (where the rule would come to that limit).
      const [first] = limits.spenders
      if (first !== undefined && !UpstreamBudget.fits(limits.perSpender, 0, units)) return yield* new Refused({ key: first })
      const toDay = Effect.gen(function* () {
        const total = UpstreamBudget.fits(limits.day, 0, units) ? yield* addToDay(day, units, limits.day) : undefined
        return total === undefined ? yield* new Refused({ key: null }) : total
      })
      if (limits.spenders.length === 0) return yield* toDay
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          for (const key of limits.spenders) {
            if (!(yield* addToShare(day, key, units, limits.perSpender))) return yield* new Refused({ key })
          }
          const total = yield* toDay
          // Yesterday's shares say nothing any more.
          yield* sql`delete from weather_budget_shares where day < ${day}`
          return total
        })
      )
    }).pipe(
      Effect.map((dayTotal): UpstreamBudget.Reservation => ({ _tag: "Reserved", dayTotal })),
      Effect.catchTag("Refused", ({ key }) =>
        Effect.map(spentBy(day, key), (spent): UpstreamBudget.Reservation => ({ _tag: "Refused", key, spent }))
      ),
      outsideTransaction,
      Effect.orDie,
      Effect.withSpan("BudgetLedger.reserve")
    )

  return UpstreamBudget.BudgetLedger.of({
    reserve,
    refund: (day, units, spenders) =>
      Effect.all([
        ...spenders.map(
          (key) => sql`update weather_budget_shares set spent = greatest(0, spent - ${units}) where day = ${day} and spender = ${key}`
        ),
        sql`update weather_budget set spent = greatest(0, spent - ${units}) where day = ${day}`
      ]).pipe(Effect.asVoid, outsideTransaction, Effect.orDie)
  })
})

export const layer = Layer.effect(UpstreamBudget.BudgetLedger, make)
