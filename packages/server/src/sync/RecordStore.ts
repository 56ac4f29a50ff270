/**
 * Storage of canonical health records: the records of a batch or of a backfill window, the records
 * that could not be read (the quarantine) and those that now can, the records a provider deleted,
 * and the records a connection holds in a range. Writes are multi-row upserts keyed by
 * (connection, provider record id): storing the same record twice changes nothing, and a record
 * whose provider JSON changed (a WHOOP cycle that got its score, a Garmin daily re-sent with larger
 * totals) or whose date changed (a WHOOP cycle re-dated once the sleep that opens it is read) is
 * updated in place. The sync state is `SyncStateRepo`'s; a backfill window's records and the move
 * of its cursor are written in one transaction, here.
 *
 * Every change writes its events to the outbox in its own transaction (see docs/sync.md, Events):
 * a store that stored or changed records writes one `data.updated` per record list with the first
 * and last day touched, and `scores.updated` with the days whose score inputs changed; the last
 * window of a backfill writes `sync.backfill.completed` with the records the connection then holds
 * in the backfill's range (what the API returns for it) and the records the backfill quarantined,
 * counted window by window in `sync_state`; a window that changes the sync state writes its
 * `connection.updated` (`SyncStateRepo`).
 *
 * Locking: every write transaction first holds its connection (`select ... for key share`,
 * `SyncStateRepo.holdConnection`) and writes nothing when the connection is gone (its user's
 * erasure removed it while a read was under way; the erasure locks its connections before any
 * row, so the two wait for each other in one order only); a backfill window then locks its sync
 * state row before any record.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import { AppId } from "@pulsebridge/domain"
import type { CanonicalBatch, CanonicalDeletion, QuarantinedRecord } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as String from "effect/String"
import * as crypto from "node:crypto"
import { Outbox } from "../events/Outbox.js"
import { scoredRecordLists } from "../scoring/ScoresRepo.js"
import { SyncStateRepo } from "./SyncStateRepo.js"

/**
 * Rows per insert statement: bounds the size of one statement's parameters and how long one
 * statement runs. The embedded database runs each statement on the server's own thread, which
 * answers no request meanwhile: a 28-day Dexcom window of 5-minute readings in one statement kept
 * it busy for seconds on a loaded machine. On PostgreSQL a window's four statements cost no more
 * than one.
 */
const chunkRows = 2000

export interface RecordOwner {
  readonly connectionId: ConnectionId
  readonly userId: UserId
  readonly provider: Provider
}

type Row = Record<string, unknown>

type RecordLists = Omit<CanonicalBatch, "quarantined">

/** What one store wrote of one record list: the days of the rows it inserted or changed. */
interface Written {
  readonly dataType: keyof RecordLists
  /** Distinct, ascending. */
  readonly dates: ReadonlyArray<string>
}

/** What one store wrote: each record list that stored or changed rows, and the records quarantined. */
interface Stored {
  readonly written: ReadonlyArray<Written>
  readonly quarantined: number
}

const tables = {
  dailyActivity: "daily_activity",
  dailyLoad: "daily_load",
  sleep: "sleep_sessions",
  recovery: "recoveries",
  workouts: "workouts",
  profiles: "profile_snapshots",
  bodyMeasurements: "body_measurement_snapshots",
  glucoseReadings: "glucose_readings",
  glucoseEvents: "glucose_events",
  glucoseCalibrations: "glucose_calibrations"
} as const satisfies Record<keyof RecordLists, string>

/** The canonical record tables, each with `connection_id` and `user_id` (what an erasure deletes, an export reads). */
export const recordTables = Object.values(tables)
export type RecordTable = (typeof recordTables)[number]

/** The quarantine's name of each record list's kind (`QuarantinedRecord.kind`). */
const kinds = {
  dailyActivity: "DailyActivity",
  dailyLoad: "DailyLoad",
  sleep: "Sleep",
  recovery: "Recovery",
  workouts: "Workout",
  profiles: "Profile",
  bodyMeasurements: "BodyMeasurement",
  glucoseReadings: "GlucoseReading",
  glucoseEvents: "GlucoseEvent",
  glucoseCalibrations: "GlucoseCalibration"
} as const satisfies Record<keyof RecordLists, string>

/** The record list and table of each kind of record a provider deletes by id. */
const deletedFrom = {
  Sleep: ["sleep", tables.sleep],
  Workout: ["workouts", tables.workouts],
  Recovery: ["recovery", tables.recovery]
} as const satisfies Record<string, readonly [keyof RecordLists, string]>

/** A quarantined record's key: the provider's id, or a hash of its JSON when it has none. */
const recordKey = (record: QuarantinedRecord): string =>
  record.providerRecordId ?? `sha256:${crypto.createHash("sha256").update(record.rawJson).digest("hex")}`

/** Canonical record fields whose column name differs from the field name. */
const renames: Readonly<Record<string, string>> = { start: "startAt", end: "endAt" }

/** Records carry no date for snapshots: they are filed under the day they were read. */
const columnOf = new Map<string, string>()
const column = (field: string): string => {
  let name = columnOf.get(field)
  if (name === undefined) {
    name = String.camelToSnake(renames[field] ?? field)
    columnOf.set(field, name)
  }
  return name
}

/**
 * A record as a row keyed by column names, without what every row of a statement shares (owner) and
 * without its raw JSON, which travels on its own (see `upsertRows`).
 */
const toRow = (record: Row, today: string): Row => {
  const row: Row = { date: today }
  for (const key in record) {
    if (key === "rawJson" || key === "partial") continue
    const value = record[key]
    // As JSON.stringify would write it, only without its slow path for objects with `toJSON`.
    row[column(key)] = value instanceof Date ? (Number.isNaN(value.getTime()) ? null : value.toISOString()) : value
  }
  return row
}

/**
 * The raw JSON of records joined by newlines, or undefined when one of them holds a newline or is
 * empty (it then travels inside the rows). Raw JSON is the provider's JSON as `JSON.stringify`
 * writes it, which has no newline.
 */
const joinedRawJson = (records: ReadonlyArray<Row>): string | undefined => {
  const texts = new Array<string>(records.length)
  for (let i = 0; i < records.length; i++) {
    const text = records[i]!["rawJson"]
    if (typeof text !== "string" || text === "" || text.includes("\n")) return undefined
    texts[i] = text
  }
  return texts.join("\n")
}

/**
 * One record per provider id, the last one winning, as a provider may send a record twice in one
 * reply: one statement may not upsert the same row twice.
 */
const lastPerId = (records: ReadonlyArray<Row>): ReadonlyArray<Row> => {
  const last = new Map<unknown, number>()
  for (let i = 0; i < records.length; i++) last.set(records[i]!["providerRecordId"], i)
  return last.size === records.length
    ? records
    : records.filter((record, i) => last.get(record["providerRecordId"]) === i)
}

export class RecordStore extends Effect.Service<RecordStore>()("@pulsebridge/server/RecordStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const states = yield* SyncStateRepo

    /**
     * A day's record covering less of the day than the stored one (a partial upload read after the
     * full one: backfills read newest first, and providers re-send) does not replace it.
     */
    const keepsFuller = (table: string) =>
      table === tables.dailyActivity
        ? sql.literal(
          "and (excluded.covered_seconds is null or daily_activity.covered_seconds is null " +
            "or excluded.covered_seconds >= daily_activity.covered_seconds)"
        )
        : sql.literal("")

    /**
     * Stores records that each hold part of a record (`RecoveryRecord.partial`), one at a time in arrival
     * order: a stored record keeps the fields the new part leaves null, and the two raw JSON objects are merged
     * (the part's keys win). Says the days of the rows inserted or changed.
     */
    const mergeRows = (owner: RecordOwner, table: string, records: ReadonlyArray<Row>, today: string) =>
      Effect.gen(function*() {
        const dates = new Set<string>()
        const target = sql(table)
        for (const record of records) {
          const row = toRow(record, today)
          const fields = Object.keys(row)
          const list = sql.literal(fields.join(", "))
          const set = sql.literal(
            fields.filter((c) => c !== "provider_record_id" && c !== "date")
              .map((c) => `${c} = coalesce(excluded.${c}, ${table}.${c})`)
              .concat(`raw_json = (${table}.raw_json::jsonb || excluded.raw_json::jsonb)::text`, "date = excluded.date")
              .join(", ")
          )
          const written = yield* sql<{ readonly date: string }>`
            insert into ${target} (connection_id, user_id, provider, ${list}, raw_json)
            select ${owner.connectionId}::uuid, ${owner.userId}::uuid, ${owner.provider}, ${list}, ${record[
            "rawJson"
          ] as string}
            from json_populate_record(null::${target}, ${JSON.stringify(row)}::json)
            on conflict (connection_id, provider_record_id) do update set ${set}, updated_at = now()
            where (${target}.raw_json::jsonb || excluded.raw_json::jsonb) is distinct from ${target}.raw_json::jsonb
              or ${target}.date is distinct from excluded.date
            returning date::text as date
          `
          for (const r of written) dates.add(r.date)
        }
        return dates
      })

    /**
     * Upserts one record list into its table, one statement per chunk; says the days of the rows
     * inserted or changed (a row stored again unchanged is not).
     *
     * The rows travel as two parameters that Postgres reads far faster than one bound value per
     * field: their fields as one JSON array typed by the table's own row type
     * (`json_populate_recordset`), and their raw JSON, the bulk of a row, as newline-separated text
     * (`string_to_array`; inside the JSON it would be escaped and parsed twice). `rows from` pairs
     * the two by position. The owner's columns are one parameter each for the whole statement.
     */
    const upsertRows = (owner: RecordOwner, table: string, all: ReadonlyArray<Row>, today: string) =>
      Effect.gen(function*() {
        const dates = new Set<string>()
        if (all.length === 0) return dates
        const partial = all.filter((record) => record["partial"] === true)
        if (partial.length > 0) {
          for (const date of yield* mergeRows(owner, table, partial, today)) dates.add(date)
          if (partial.length === all.length) return dates
        }
        const records = lastPerId(partial.length === 0 ? all : all.filter((record) => record["partial"] !== true))
        const fields = Object.keys(toRow(records[0]!, today))
        const list = sql.literal(fields.join(", "))
        const set = sql.literal(
          [...fields.filter((c) => c !== "provider_record_id"), "user_id", "provider", "raw_json"]
            .map((c) => `${c} = excluded.${c}`).join(", ")
        )
        const target = sql(table)
        for (let i = 0; i < records.length; i += chunkRows) {
          const chunk = records.slice(i, i + chunkRows)
          const raw = joinedRawJson(chunk)
          const rows = JSON.stringify(
            raw === undefined
              ? chunk.map((record) => ({ ...toRow(record, today), raw_json: record["rawJson"] }))
              : chunk.map((record) => toRow(record, today))
          )
          const written = yield* sql<{ readonly date: string }>`
            with written as (
              insert into ${target} (connection_id, user_id, provider, ${list}, raw_json)
              select ${owner.connectionId}::uuid, ${owner.userId}::uuid, ${owner.provider}, ${list},
                coalesce(r.unnest, r.raw_json)
              from rows from (
                json_populate_recordset(null::${target}, ${rows}::json),
                unnest(string_to_array(${raw ?? null}::text, E'\\n'))
              ) r
              on conflict (connection_id, provider_record_id) do update set ${set}, updated_at = now()
              where (${target}.raw_json is distinct from excluded.raw_json or ${target}.date is distinct from excluded.date)
                ${keepsFuller(table)}
              returning date
            )
            select distinct date::text as date from written
          `
          for (const row of written) dates.add(row.date)
        }
        return dates
      })

    /** Files records that could not be read; one seen again only has its reason and time updated. */
    const quarantine = (owner: RecordOwner, records: ReadonlyArray<QuarantinedRecord>) => {
      // One row per key: a statement may not update a row twice.
      const rows = Array.from(
        new Map(records.map((record) => {
          const key = recordKey(record)
          return [`${record.kind}\u0000${key}`, {
            connection_id: owner.connectionId,
            user_id: owner.userId,
            provider: owner.provider,
            kind: record.kind,
            record_key: key,
            provider_record_id: record.providerRecordId,
            reason: record.reason,
            raw_json: record.rawJson
          }]
        })).values()
      )
      return Effect.as(
        sql`
        insert into quarantined_records
          (connection_id, user_id, provider, kind, record_key, provider_record_id, reason, raw_json)
        select connection_id, user_id, provider, kind, record_key, provider_record_id, reason, raw_json
        from json_populate_recordset(null::quarantined_records, ${JSON.stringify(rows)}::json)
        on conflict (connection_id, kind, record_key) do update set
          reason = excluded.reason, raw_json = excluded.raw_json, last_seen_at = now()
      `,
        rows.length
      )
    }

    /** Records read well now leave the quarantine (checked first: the quarantine is almost always empty). */
    const release = (owner: RecordOwner, batch: CanonicalBatch) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ readonly held: boolean }>`
          select exists (select 1 from quarantined_records where connection_id = ${owner.connectionId}) as held
        `
        if (row?.held !== true) return
        for (const [key, kind] of Object.entries(kinds) as Array<[keyof RecordLists, string]>) {
          const ids = (batch[key] as ReadonlyArray<{ readonly providerRecordId: string }>).map((r) =>
            r.providerRecordId
          )
          if (ids.length === 0) continue
          yield* sql`
            delete from quarantined_records
            where connection_id = ${owner.connectionId} and kind = ${kind}
              and record_key in (select json_array_elements_text(${JSON.stringify(ids)}::json))
          `
        }
      })

    /** Stores every record of a batch for one connection (in the caller's transaction); says what it wrote. */
    const storeRecords = (owner: RecordOwner, batch: CanonicalBatch, today: string) =>
      Effect.gen(function*() {
        const written: Array<Written> = []
        for (const [key, table] of Object.entries(tables) as Array<[keyof RecordLists, string]>) {
          const records = batch[key] as ReadonlyArray<object>
          if (records.length > 0) {
            const dates = yield* upsertRows(owner, table, records as ReadonlyArray<Row>, today)
            if (dates.size > 0) written.push({ dataType: key, dates: Array.from(dates).sort() })
          }
        }
        yield* release(owner, batch)
        let quarantined = 0
        if (batch.quarantined.length > 0) {
          quarantined = yield* quarantine(owner, batch.quarantined)
          yield* Effect.logWarning("Provider records quarantined").pipe(
            Effect.annotateLogs({
              connectionId: owner.connectionId,
              provider: owner.provider,
              count: batch.quarantined.length,
              reasons: Array.from(new Set(batch.quarantined.map((r) => `${r.kind} ${r.reason}`))).slice(0, 5)
            })
          )
        }
        return { written, quarantined } satisfies Stored
      })

    const appOf = (connectionId: string) =>
      Effect.flatMap(
        sql`select app_id from connections where id = ${connectionId}`,
        Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ appId: AppId })))
      ).pipe(Effect.map(([row]) => row.appId))

    /**
     * The events of stored or deleted records: `data.updated` per record list with the first and
     * last day touched, then `scores.updated` with the days whose score inputs changed.
     */
    const emitWritten = (owner: RecordOwner, written: ReadonlyArray<Written>) =>
      Effect.gen(function*() {
        if (written.length === 0) return
        const appId = yield* appOf(owner.connectionId)
        const scoreDates = new Set<string>()
        for (const list of written) {
          yield* outbox.emit({
            appId,
            userId: owner.userId,
            type: "data.updated",
            data: {
              userId: owner.userId,
              connectionId: owner.connectionId,
              provider: owner.provider,
              dataType: list.dataType,
              from: list.dates[0]!,
              to: list.dates[list.dates.length - 1]!
            }
          })
          if (scoredRecordLists.includes(list.dataType)) { for (const date of list.dates) scoreDates.add(date) }
        }
        if (scoreDates.size > 0) {
          yield* outbox.emit({
            appId,
            userId: owner.userId,
            type: "scores.updated",
            data: { userId: owner.userId, dates: Array.from(scoreDates).sort() }
          })
        }
      })

    /** Stores every record of a batch for one connection, with its events, in one transaction. */
    const storeBatch = (owner: RecordOwner, batch: CanonicalBatch, today: string) =>
      Effect.gen(function*() {
        if (!(yield* states.holdConnection(owner.connectionId))) return
        const stored = yield* storeRecords(owner, batch, today)
        yield* emitWritten(owner, stored.written)
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("RecordStore.storeBatch"))

    /**
     * The records the connection holds dated `from`..`to`, by record list (those it has any of):
     * what a backfill of that range leaves, and what the API returns for it. One statement, once
     * per backfill.
     */
    const countsIn = (connectionId: string, from: string, to: string) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ readonly dataType: string; readonly n: number }>`${
          sql.join(" union all ", false)(
            Object.entries(tables).map(([dataType, table]) =>
              sql`
                select ${dataType} as data_type, count(*)::int as n from ${sql(table)}
                where connection_id = ${connectionId} and date between ${from}::date and ${to}::date
              `
            )
          )
        }`
        const counts: Record<string, number> = {}
        for (const row of rows) if (Number(row.n) > 0) counts[row.dataType] = Number(row.n)
        return counts
      })

    /**
     * Stores a backfill window and moves its cursor (`SyncStateRepo.advanceBackfill`) in one
     * transaction: a window whose store fails leaves neither records nor a moved cursor, so the
     * window is read again whole.
     */
    const storeBackfillWindow = (
      owner: RecordOwner,
      batch: CanonicalBatch,
      today: string,
      nextCursor: string | null
    ) =>
      Effect.gen(function*() {
        if (!(yield* states.holdConnection(owner.connectionId))) return
        const before = yield* states.lockState(owner.connectionId)
        const stored = yield* storeRecords(owner, batch, today)
        yield* emitWritten(owner, stored.written)
        const quarantined = (before?.backfillQuarantined ?? 0) + stored.quarantined
        const after = yield* states.advanceBackfill(owner.connectionId, nextCursor, quarantined)
        if (nextCursor === null && after?.backfillFrom != null && after.backfillTo != null) {
          yield* outbox.emit({
            appId: yield* appOf(owner.connectionId),
            userId: owner.userId,
            type: "sync.backfill.completed",
            data: {
              userId: owner.userId,
              connectionId: owner.connectionId,
              provider: owner.provider,
              from: after.backfillFrom,
              to: after.backfillTo,
              counts: yield* countsIn(owner.connectionId, after.backfillFrom, after.backfillTo),
              quarantined
            }
          })
        }
        yield* states.emitIfChanged(owner.connectionId, before, after?.state)
      }).pipe(sql.withTransaction, Effect.orDie)

    /**
     * Removes records the provider says it deleted, in one transaction with their events (as for
     * stored records: the days that lost a record were touched). A recovery belongs to a sleep, so
     * a deleted sleep takes its recoveries with it (`RecoveryOfSleep`).
     */
    const deleteRecords = (owner: RecordOwner, deletions: ReadonlyArray<CanonicalDeletion>) =>
      Effect.gen(function*() {
        const connectionId = owner.connectionId
        if (!(yield* states.holdConnection(connectionId))) return
        const touched = new Map<keyof RecordLists, Set<string>>()
        for (const deletion of deletions) {
          const [dataType, table, match] = deletion.kind === "RecoveryOfSleep"
            ? ["recovery", "recoveries", sql`sleep_id = ${deletion.sleepId}`] as const
            : [...deletedFrom[deletion.kind], sql`provider_record_id = ${deletion.providerRecordId}`] as const
          const deleted = yield* sql<{ readonly date: string }>`
            delete from ${sql(table)} where connection_id = ${connectionId} and ${match}
            returning date::text as date
          `
          if (deleted.length === 0) continue
          const dates = touched.get(dataType) ?? new Set<string>()
          for (const row of deleted) dates.add(row.date)
          touched.set(dataType, dates)
        }
        yield* emitWritten(
          owner,
          Array.from(touched, ([dataType, dates]): Written => ({ dataType, dates: Array.from(dates).sort() }))
        )
      }).pipe(sql.withTransaction, Effect.orDie)

    return { storeBatch, storeBackfillWindow, deleteRecords } as const
  }),
  dependencies: [SyncStateRepo.Default, Outbox.Default]
}) {}
