/**
 * The record store's bulk writes at their edges, on a connected Dexcom user whose sync is otherwise
 * still (no periodic sync runs): a record sent twice in one batch, raw JSON of every kind of text,
 * and a backfill window whose store fails midway (as a crash would leave it). What was stored is
 * read back through endpoint 14 and the events out; raw JSON, which no endpoint shows, from the
 * table.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { ConnectionId, UserId } from "@pulsebridge/domain"
import type { CanonicalBatch, GlucoseEventRecord, GlucoseReadingRecord } from "@pulsebridge/providers"
import { emptyBatch } from "@pulsebridge/providers"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as crypto from "node:crypto"
import { RecordStore } from "../../src/sync/RecordStore.js"
import { SyncStateRepo } from "../../src/sync/SyncStateRepo.js"
import { ErasureRepo } from "../../src/users/ErasureRepo.js"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { addEndpoint, ofType, sentTo } from "../fixtures/Events.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

/** A reading at `time` (UTC, dated by it), with its raw JSON as a provider's record would give it. */
const reading = (time: string, value: number, rawJson?: string): GlucoseReadingRecord => {
  const id = crypto.randomUUID()
  return {
    providerRecordId: id,
    date: time.slice(0, 10),
    systemTime: new Date(time),
    displayTime: new Date(time),
    value,
    trend: "Flat",
    trendRate: 0,
    unit: "mg/dL",
    rateUnit: "mg/dL/min",
    status: null,
    transmitterId: null,
    rawJson: rawJson ?? JSON.stringify({ recordId: id, systemTime: time, value })
  }
}

const event = (time: string, eventType: string): GlucoseEventRecord => {
  const id = crypto.randomUUID()
  return {
    providerRecordId: id,
    date: time.slice(0, 10),
    systemTime: new Date(time),
    displayTime: new Date(time),
    eventStatus: "Created",
    eventType,
    eventSubType: null,
    value: 30,
    unit: "grams",
    rawJson: JSON.stringify({ recordId: id, systemTime: time, eventType })
  }
}

const batch = (lists: Partial<CanonicalBatch>): CanonicalBatch => ({ ...emptyBatch, ...lists })

/** A connected Dexcom user whose connect-time backfill is over, and an endpoint taking every event of its app. */
const connected = (label: string) =>
  Effect.gen(function*() {
    const { app, token, user } = yield* createUser(`store-${label}-${simulatedUser("u")}`)
    const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
    yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
    const endpoint = yield* addEndpoint(app.id)
    const owner = { connectionId: connectionId as ConnectionId, userId: user.id as UserId, provider: "Dexcom" as const }
    return { token, userId: user.id, connectionId, owner, endpoint }
  })

const readings = (userId: string, token: string, from: string, to: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", `/api/v1/users/${userId}/connections/glucose?from=${from}&to=${to}`, {
      bearer: token
    })
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as any).readings as Array<{ recordId: string; value: number | null }>
  })

const rawJsonOf = (connectionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ providerRecordId: string; rawJson: string }>`
      select provider_record_id, raw_json from glucose_readings where connection_id = ${connectionId}
    `
    return new Map(rows.map((row) => [row.providerRecordId, row.rawJson]))
  }).pipe(Effect.orDie)

const backfillState = (connectionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ state: string; backfillCursor: string | null }>`
      select state, backfill_cursor::text as backfill_cursor from sync_state where connection_id = ${connectionId}
    `
    return row!
  }).pipe(Effect.orDie)

layer(makeTestServer({ sandbox: true, syncCron: "0 0 1 1 *" }), { timeout: "300 seconds", excludeTestServices: true })(
  "bulk writes of the record store",
  (it) => {
    it.effect("a record sent twice in one batch is stored once, as last sent, with one data.updated", () =>
      Effect.gen(function*() {
        const store = yield* RecordStore
        const { connectionId, endpoint, owner, token, userId } = yield* connected("twice")
        const first = reading("2020-01-02T08:00:00.000Z", 100)
        const other = reading("2020-01-03T08:00:00.000Z", 110)
        const again = {
          ...first,
          value: 150,
          rawJson: JSON.stringify({ recordId: first.providerRecordId, value: 150 })
        }
        yield* store.storeBatch(owner, batch({ glucoseReadings: [first, other, again] }), "2020-01-05")

        const stored = yield* readings(userId, token, "2020-01-01", "2020-01-04")
        expect(stored.map((r) => [r.recordId, r.value]).sort()).toEqual(
          [[first.providerRecordId, 150], [other.providerRecordId, 110]].sort()
        )
        expect((yield* rawJsonOf(connectionId)).get(first.providerRecordId)).toBe(again.rawJson)
        const updates = ofType(yield* sentTo(endpoint), "data.updated").filter((e) => e.data.from < "2021-01-01")
        expect(updates.map((e) => e.data)).toEqual([
          {
            userId,
            connectionId,
            provider: "Dexcom",
            dataType: "glucoseReadings",
            from: "2020-01-02",
            to: "2020-01-03"
          }
        ])

        // The same batch again changes nothing and says nothing.
        yield* store.storeBatch(owner, batch({ glucoseReadings: [first, other, again] }), "2020-01-05")
        expect(ofType(yield* sentTo(endpoint), "data.updated").filter((e) => e.data.from < "2021-01-01")).toHaveLength(
          1
        )
      }))

    it.effect("raw JSON is stored exactly as received, newlines, quotes, backslashes and any Unicode included", () =>
      Effect.gen(function*() {
        const store = yield* RecordStore
        const { connectionId, owner, token, userId } = yield* connected("raw")
        const texts = [
          JSON.stringify({ note: "quotes \" and \\ backslashes, \t tabs", path: "C:\\dexcom\\" }),
          JSON.stringify({ note: "é ü ß 漢字 🩸 \u2028 \u00a0", empty: "" }),
          JSON.stringify({ sep: "\u001e\u001f", nul: "\\u0000 as text" })
        ]
        const plain = texts.map((text, i) => reading(`2020-02-0${i + 1}T10:00:00.000Z`, 90 + i, text))
        // Raw JSON as a provider might lay it out, over several lines: the rows then carry it themselves.
        const pretty = [
          reading("2020-02-05T10:00:00.000Z", 120, JSON.stringify({ a: 1, b: ["x\ny"] }, null, 2)),
          reading("2020-02-06T10:00:00.000Z", 121)
        ]
        yield* store.storeBatch(owner, batch({ glucoseReadings: plain }), "2020-02-10")
        yield* store.storeBatch(owner, batch({ glucoseReadings: pretty }), "2020-02-10")

        const raw = yield* rawJsonOf(connectionId)
        for (const record of [...plain, ...pretty]) expect(raw.get(record.providerRecordId)).toBe(record.rawJson)
        const stored = yield* readings(userId, token, "2020-02-01", "2020-02-09")
        expect(stored.map((r) => r.value).sort((a, b) => a! - b!)).toEqual([90, 91, 92, 120, 121])
      }))

    it.effect("writes still under way for a connection its user's erasure has removed are skipped, not failed", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* RecordStore
        const states = yield* SyncStateRepo
        const { connectionId, owner, userId } = yield* connected("erased")
        // What the erasure's transaction does once its revocations are over.
        yield* Effect.flatMap(ErasureRepo, (repo) => repo.deleteRowsOf(userId)).pipe(sql.withTransaction, Effect.orDie)
        const window = batch({ glucoseReadings: [reading("2020-04-02T07:00:00.000Z", 120)] })
        // A sync that read its window before the erasure stores it, stops, or records its failure after.
        yield* store.storeBatch(owner, window, "2020-04-02")
        yield* states.planBackfill(connectionId, "2020-04-01", "2020-04-02")
        yield* store.storeBackfillWindow(owner, window, "2020-04-02", null)
        yield* store.deleteRecords(owner, [{ kind: "Sleep", providerRecordId: "gone" }])
        yield* states.setState(connectionId, { state: "Stopped", lastError: "user is inactive" })
        const left = yield* sql<{ n: number }>`
          select (select count(*) from glucose_readings where connection_id = ${connectionId})
            + (select count(*) from sync_state where connection_id = ${connectionId})
            + (select count(*) from connections where id = ${connectionId}) as n
        `.pipe(Effect.orDie)
        expect(Number(left[0]!.n)).toBe(0)
      }))

    it.effect(
      "a backfill window whose store fails midway leaves none of its rows, events or cursor move; stored again, it is whole",
      () =>
        Effect.gen(function*() {
          const store = yield* RecordStore
          const states = yield* SyncStateRepo
          const { connectionId, endpoint, owner, token, userId } = yield* connected("midway")
          const before = (yield* sentTo(endpoint)).length
          yield* states.planBackfill(connectionId, "2020-03-01", "2020-03-29")
          expect(yield* backfillState(connectionId)).toEqual({ state: "Backfilling", backfillCursor: "2020-03-29" })

          const window = [reading("2020-03-20T07:00:00.000Z", 101), reading("2020-03-21T07:00:00.000Z", 102)]
          const meal = event("2020-03-20T12:00:00.000Z", "Carbs")
          // The readings go in first; the event breaks a constraint of its table, so the transaction ends there.
          const broken = { ...event("2020-03-21T12:00:00.000Z", "Carbs"), eventType: null as unknown as string }
          const failed = yield* Effect.exit(
            store.storeBackfillWindow(
              owner,
              batch({ glucoseReadings: window, glucoseEvents: [meal, broken] }),
              "2020-03-29",
              "2020-03-01"
            )
          )
          expect(Exit.isFailure(failed)).toBe(true)
          expect(yield* readings(userId, token, "2020-03-01", "2020-03-29")).toEqual([])
          expect(yield* backfillState(connectionId)).toEqual({ state: "Backfilling", backfillCursor: "2020-03-29" })
          const afterFailure = yield* sentTo(endpoint)
          expect(ofType(afterFailure.slice(before), "data.updated")).toEqual([])

          // As a restart would: the same window read again, now whole, then the last one.
          yield* store.storeBackfillWindow(
            owner,
            batch({ glucoseReadings: window, glucoseEvents: [meal] }),
            "2020-03-29",
            "2020-03-01"
          )
          expect(yield* backfillState(connectionId)).toEqual({ state: "Backfilling", backfillCursor: "2020-03-01" })
          yield* store.storeBackfillWindow(
            owner,
            batch({ glucoseReadings: [reading("2020-03-01T07:00:00.000Z", 99)] }),
            "2020-03-29",
            null
          )
          expect(yield* backfillState(connectionId)).toEqual({ state: "Idle", backfillCursor: null })

          expect(
            (yield* readings(userId, token, "2020-03-01", "2020-03-29")).map((r) => r.value).sort((a, b) => a! - b!)
          ).toEqual([
            99,
            101,
            102
          ])
          const added = (yield* sentTo(endpoint)).slice(afterFailure.length)
          expect(ofType(added, "data.updated").map((e) => [e.data.dataType, e.data.from, e.data.to])).toEqual([
            ["glucoseReadings", "2020-03-20", "2020-03-21"],
            ["glucoseEvents", "2020-03-20", "2020-03-20"],
            ["glucoseReadings", "2020-03-01", "2020-03-01"]
          ])
          const [completed] = ofType(added, "sync.backfill.completed")
          expect(completed!.data).toMatchObject({
            from: "2020-03-01",
            to: "2020-03-29",
            counts: { glucoseReadings: 3, glucoseEvents: 1 },
            quarantined: 0
          })
        })
    )
  }
)
