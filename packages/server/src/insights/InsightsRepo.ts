/**
 * The statements behind the glucose responses to meals: the user's glucose readings in a set of time
 * windows (one statement for any number of entries: each window is one range of the (user, system time)
 * index), the user's connections, the entries around the windows, and the entries of a range of journal
 * dates. Rows are decoded with schemas; every read is scoped by the user's id.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { EntryKind, JournalEntryId, nutrientKeys, Nutrients } from "@pulsebridge/domain"
import type { UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../connections/ConnectionsRepo.js"

/** A span of time, in epoch milliseconds. */
export interface Span {
  readonly start: number
  readonly end: number
}

export const ReadingRow = Schema.Struct({
  connectionId: Schema.String,
  provider: Schema.String,
  systemTime: Schema.DateFromSelf,
  value: Schema.Number,
  unit: Schema.String,
  status: Schema.NullOr(Schema.String)
})
export type ReadingRow = typeof ReadingRow.Type

export const ConnectionRow = Schema.Struct({ id: Schema.String, provider: Schema.String })
export type ConnectionRow = typeof ConnectionRow.Type

/** An entry as another entry's response sees it: when it was. */
export const OtherEntryRow = Schema.Struct({ id: Schema.String, consumedAtUtc: Schema.DateFromSelf })
export type OtherEntryRow = typeof OtherEntryRow.Type

/** An entry as the meal-responses read answers it. */
export const MealEntryRow = Schema.Struct({
  id: JournalEntryId,
  entryKind: EntryKind,
  title: Schema.String,
  consumedAtUtc: Schema.DateFromSelf,
  journalDate: Schema.String,
  timezone: Schema.String,
  ...Nutrients.fields
})
export type MealEntryRow = typeof MealEntryRow.Type

/** An item's name, as the meal comparisons group entries by it. */
export const ItemNameRow = Schema.Struct({ entryId: Schema.String, name: Schema.String })
export type ItemNameRow = typeof ItemNameRow.Type

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** Sorted, overlapping or touching spans joined: each instant is read once. */
export const mergeSpans = (spans: ReadonlyArray<Span>): Array<Span> => {
  const sorted = [...spans].sort((a, b) => a.start - b.start)
  const out: Array<Span> = []
  for (const span of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && span.start <= last.end) {
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, span.end) }
    } else out.push(span)
  }
  return out
}

export class InsightsRepo extends Effect.Service<InsightsRepo>()("@pulsebridge/server/InsightsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const readings = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, windows: Schema.String }),
      Result: ReadingRow,
      // The windows go as one JSON parameter, whatever their number; each is one range of the index. `offset 0`
      // keeps the subquery per window: flattened, the planner may read all of the user's readings once and
      // compare each with every window (seconds for a year, where the ranges take milliseconds).
      execute: ({ userId, windows }) =>
        sql`
          select g.connection_id, g.provider, g.system_time, g.value, g.unit, g.status
          from jsonb_to_recordset(${windows}::jsonb) as w(s timestamptz, e timestamptz)
          cross join lateral (
            select x.connection_id, x.provider, x.system_time, x.value, x.unit, x.status
            from glucose_readings x
            where x.user_id = ${userId} and x.system_time >= w.s and x.system_time <= w.e and x.value is not null
            offset 0
          ) g
          join connections c on c.id = g.connection_id
          where ${visibleConnection(sql, "c")}
          order by g.connection_id, g.system_time
        `
    })

    const connections = SqlSchema.findAll({
      Request: Schema.String,
      Result: ConnectionRow,
      execute: (userId) =>
        sql`select id, provider from connections where user_id = ${userId} and ${visibleConnection(sql)}`
    })

    const entriesBetween = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, from: Schema.DateFromSelf, to: Schema.DateFromSelf }),
      Result: OtherEntryRow,
      execute: ({ from, to, userId }) =>
        sql`
          select id, consumed_at_utc from journal_entries
          where user_id = ${userId} and entry_kind <> 'Water' and consumed_at_utc between ${from} and ${to}
        `
    })

    const mealColumns = sql.literal(
      `id, entry_kind, title, consumed_at_utc, journal_date::text as journal_date, timezone, ` +
        nutrientKeys.map(snake).join(", ")
    )
    const mealsByRange = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String }),
      Result: MealEntryRow,
      execute: ({ from, to, userId }) =>
        sql`
          select ${mealColumns} from journal_entries
          where user_id = ${userId} and journal_date between ${from}::date and ${to}::date and entry_kind <> 'Water'
          order by journal_date, consumed_at_utc, created_at, id
        `
    })

    const mealsForComparison = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String, limit: Schema.Number }),
      Result: MealEntryRow,
      execute: ({ from, limit, to, userId }) =>
        sql`
          select ${mealColumns} from journal_entries
          where user_id = ${userId} and journal_date between ${from}::date and ${to}::date and entry_kind <> 'Water'
          order by consumed_at_utc, id
          limit ${limit}
        `
    })

    const itemNames = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String }),
      Result: ItemNameRow,
      execute: ({ from, to, userId }) =>
        sql`
          select i.entry_id::text as entry_id, i.name from journal_items i
          join journal_entries e on e.id = i.entry_id
          where e.user_id = ${userId} and e.journal_date between ${from}::date and ${to}::date
            and e.entry_kind <> 'Water'
        `
    })

    return {
      /** The user's readings with a value in the spans, of connections not disconnected, by connection then time. */
      readingsIn: (userId: UserId, spans: ReadonlyArray<Span>) =>
        spans.length === 0
          ? Effect.succeed([] as ReadonlyArray<ReadingRow>)
          : readings({
            userId,
            windows: JSON.stringify(
              mergeSpans(spans).map((s) => ({ s: new Date(s.start).toISOString(), e: new Date(s.end).toISOString() }))
            )
          }).pipe(Effect.orDie),

      /** The user's connections that are not disconnected. */
      connectionsOf: (userId: UserId) => connections(userId).pipe(Effect.orDie),

      /** The user's meals, drinks and coffees from `from` to `to` (inclusive). */
      entriesBetween: (userId: UserId, from: Date, to: Date) => entriesBetween({ userId, from, to }).pipe(Effect.orDie),

      /** The user's meals, drinks and coffees of the journal dates `from` to `to`, by date then time. */
      mealsByRange: (userId: UserId, from: string, to: string) => mealsByRange({ userId, from, to }).pipe(Effect.orDie),

      /** At most `limit` of the user's meals, drinks and coffees of the journal dates `from` to `to`, by time. */
      mealsForComparison: (userId: UserId, from: string, to: string, limit: number) =>
        mealsForComparison({ userId, from, to, limit }).pipe(Effect.orDie),

      /** The item names of the user's meals, drinks and coffees of the journal dates `from` to `to`. */
      itemNamesByRange: (userId: UserId, from: string, to: string) => itemNames({ userId, from, to }).pipe(Effect.orDie)
    } as const
  })
}) {}
