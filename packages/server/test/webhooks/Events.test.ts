/**
 * The events out, written at every change, end to end: each change is driven through HTTP against
 * the sandbox, and what the outbox holds for the app's endpoints is read back: types, order, data
 * (checked by each type's schema), one delivery per endpoint with the event's user, counts equal to
 * what the API then returns, no `connection.updated` per backfill window, nothing for another app,
 * and nothing when the change rolls back.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import * as Simulators from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ConnectionEvents } from "../../src/connections/ConnectionEvents.js"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { ProviderAccess } from "../../src/connections/ProviderAccess.js"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { windowsNewestFirst } from "../../src/sync/SyncEngine.js"
import { Users } from "../../src/users/Users.js"
import { connect, listConnections, sim, simulatedUser } from "../fixtures/Connect.js"
import type { SentEvent } from "../fixtures/Events.js"
import { addEndpoint, eventCount, ofType, sentTo } from "../fixtures/Events.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const BackfillDays = 30

/** The record tables, by the data type names the events use. */
const tables: Record<string, string> = {
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
}
const scored = ["dailyActivity", "dailyLoad", "sleep", "recovery", "workouts"]

/** Rows stored for the connection dated `from`..`to`, by data type (only types with rows). */
const storedCounts = (connectionId: string, from: string, to: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counts: Record<string, number> = {}
    for (const [dataType, table] of Object.entries(tables)) {
      const [row] = yield* sql<{ n: number }>`
        select count(*)::int as n from ${sql(table)}
        where connection_id = ${connectionId} and date between ${from} and ${to}
      `
      if (Number(row!.n) > 0) counts[dataType] = Number(row!.n)
    }
    return counts
  }).pipe(Effect.orDie)

/** The days of the connection's rows that the scores read, ascending. */
const scoredDates = (connectionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const dates = new Set<string>()
    for (const dataType of scored) {
      const rows = yield* sql<{ date: string }>`
        select distinct date::text as date from ${sql(tables[dataType]!)} where connection_id = ${connectionId}
      `
      for (const row of rows) dates.add(row.date)
    }
    return Array.from(dates).sort()
  }).pipe(Effect.orDie)

const glucoseOf = (userId: string, token: string, from: string, to: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", `/api/v1/users/${userId}/connections/glucose?from=${from}&to=${to}`, {
      bearer: token
    })
    expect(reply.status, preview(reply)).toBe(200)
    const body = json(reply) as any
    const counts: Record<string, number> = {}
    if (body.readings.length > 0) counts["glucoseReadings"] = body.readings.length
    if (body.events.length > 0) counts["glucoseEvents"] = body.events.length
    if (body.calibrations.length > 0) counts["glucoseCalibrations"] = body.calibrations.length
    return counts
  })

/** Status, sync state and reason of each connection event, in order. */
const connectionStates = (events: ReadonlyArray<SentEvent>) =>
  ofType(events, "connection.created", "connection.updated", "connection.deleted").map((e) =>
    [e.type, e.data.status, e.data.syncState, e.data.reason] as const
  )

/**
 * One `data.updated` of `dataType` per window, newest window first, each about the days of its
 * window (give or take the two days a provider's read may reach past it); together they name the
 * first and last day stored.
 */
const expectOnePerWindow = (
  events: ReadonlyArray<SentEvent>,
  dataType: string,
  windows: ReadonlyArray<{ from: string; to: string }>,
  stored: { readonly first: string; readonly last: string }
) => {
  const updates = ofType(events, "data.updated").filter((e) => e.data.dataType === dataType)
  expect(updates.length, `${dataType}: one data.updated per window`).toBe(windows.length)
  updates.forEach((e, i) => {
    expect(e.data.from <= e.data.to).toBe(true)
    expect(e.data.from >= addDays(windows[i]!.from, -2), JSON.stringify(e.data)).toBe(true)
    expect(e.data.to <= addDays(windows[i]!.to, 2), JSON.stringify(e.data)).toBe(true)
    expect(e.data.to >= windows[i]!.from && e.data.from <= windows[i]!.to, JSON.stringify(e.data)).toBe(true)
  })
  expect(updates.map((e) => e.data.from).sort()[0]).toBe(stored.first)
  expect(updates.map((e) => e.data.to).sort().at(-1)).toBe(stored.last)
}

/** The first and last day of the connection's rows of `dataType` (optionally only those changed since `since`). */
const storedSpan = (connectionId: string, dataType: string, since?: Date) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ first: string; last: string }>`
      select min(date)::text as first, max(date)::text as last from ${sql(tables[dataType]!)}
      where connection_id = ${connectionId} ${since === undefined ? sql`` : sql`and updated_at >= ${since}`}
    `
    return row!
  }).pipe(Effect.orDie)

const syncStateOf = (connectionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ state: string }>`select state from sync_state where connection_id = ${connectionId}`
  ).pipe(Effect.map((rows) => rows[0]?.state), Effect.orDie)

const secretOf = (provider: "Garmin" | "WHOOP") =>
  Effect.map(ProviderAccess, (access) => access.sandboxCredentials(provider))

// No periodic sync: what the outbox holds is what the tests did.
layer(makeTestServer({ sandbox: true, backfillDays: BackfillDays, syncCron: "0 0 1 1 *" }), {
  timeout: "400 seconds",
  excludeTestServices: true
})("events out", (it) => {
  it.effect(
    "Dexcom: a connect and its backfill, then a 200-day backfill the app asks for: two connection.updated each, " +
      "data.updated per window, sync.backfill.completed with what the API returns",
    () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser(`events-dexcom-${simulatedUser("u")}`)
        const all = yield* addEndpoint(app.id)
        const completedOnly = yield* addEndpoint(app.id, ["sync.backfill.completed"])
        const other = yield* createUser(`events-other-${simulatedUser("u")}`)
        const otherEndpoint = yield* addEndpoint(other.app.id)

        const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
        yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
        const events = yield* sentTo(all)
        expect(connectionStates(events)).toEqual([
          ["connection.created", "Active", "Pending", null],
          ["connection.updated", "Active", "Backfilling", null],
          ["connection.updated", "Active", "Idle", null]
        ])
        for (const event of events) {
          expect(event.userId).toBe(user.id)
          if (event.type !== "scores.updated") {
            expect(event.data).toMatchObject({ userId: user.id, connectionId, provider: "Dexcom" })
          }
        }
        expect(events[0]!.type).toBe("connection.created")
        expect(events[1]!.type).toBe("connection.updated")
        expect(events.slice(-2).map((e) => e.type)).toEqual(["sync.backfill.completed", "connection.updated"])
        // glucose is not a score input
        expect(ofType(events, "scores.updated")).toEqual([])

        const [completed] = ofType(events, "sync.backfill.completed")
        const { from, to } = completed!.data
        expect(addDays(to, -(BackfillDays - 1))).toBe(from)
        expect(completed!.data).toEqual({
          userId: user.id,
          connectionId,
          provider: "Dexcom",
          from,
          to,
          counts: yield* glucoseOf(user.id, token, from, to),
          quarantined: 0
        })
        expect(completed!.data.counts).toEqual(yield* storedCounts(connectionId, from, to))
        expect(completed!.data.counts.glucoseReadings).toBeGreaterThan(1000)
        expectOnePerWindow(
          events,
          "glucoseReadings",
          windowsNewestFirst(from, to, 28),
          yield* storedSpan(connectionId, "glucoseReadings")
        )

        // A backfill of 200 days the app asks for: 8 windows, still one connection.updated per state change.
        const today = localToday(new Date(), null)
        const range = { from: addDays(today, -230), to: addDays(today, -31) }
        const asked = new Date()
        const accepted = yield* send("POST", `/api/v1/users/${user.id}/connections/${connectionId}/sync`, {
          bearer: token,
          json: range
        })
        expect(accepted.status, preview(accepted)).toBe(202)
        const after = yield* eventually(
          sentTo(all),
          (list) => ofType(list, "sync.backfill.completed").length === 2,
          "the second backfill's completion",
          { within: "180 seconds", every: "500 millis" }
        )
        const added = after.slice(events.length)
        expect(connectionStates(added)).toEqual([
          ["connection.updated", "Active", "Backfilling", null],
          ["connection.updated", "Active", "Idle", null]
        ])
        const windows = windowsNewestFirst(range.from, range.to, 28)
        expect(windows.length).toBe(8)
        expectOnePerWindow(added, "glucoseReadings", windows, yield* storedSpan(connectionId, "glucoseReadings", asked))
        const [second] = ofType(added, "sync.backfill.completed")
        expect(second!.data).toEqual({
          userId: user.id,
          connectionId,
          provider: "Dexcom",
          ...range,
          counts: yield* glucoseOf(user.id, token, range.from, range.to),
          quarantined: 0
        })
        expect(second!.data.counts.glucoseReadings).toBeGreaterThan(1000)

        // The filter: only what the endpoint takes; another app's endpoint gets nothing.
        expect((yield* sentTo(completedOnly)).map((e) => e.id)).toEqual([completed!.id, second!.id])
        expect(yield* sentTo(otherEndpoint)).toEqual([])
        expect(yield* eventCount(other.app.id)).toBe(0)
        expect(yield* eventCount(app.id)).toBe(after.length)
      }),
    300_000
  )

  it.effect(
    "Fitbit: data.updated per window and data type; scores.updated names exactly the days scored data touched",
    () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser(`events-fitbit-${simulatedUser("u")}`)
        const all = yield* addEndpoint(app.id)
        const { connectionId } = yield* connect(user.id, token, "Fitbit", simulatedUser("fitbit"))
        yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
        const events = yield* sentTo(all)
        const [completed] = ofType(events, "sync.backfill.completed")
        const { counts, from, to } = completed!.data
        expect(counts).toEqual(yield* storedCounts(connectionId, from, to))
        const days = json(
          yield* send("GET", `/api/v1/users/${user.id}/connections/activity?from=${from}&to=${to}`, { bearer: token })
        )
        expect(counts.dailyActivity).toBe(days.length)
        expect(days.length).toBeGreaterThanOrEqual(BackfillDays - 1)
        expectOnePerWindow(
          events,
          "dailyActivity",
          windowsNewestFirst(from, to, 14),
          yield* storedSpan(connectionId, "dailyActivity")
        )

        // Each scores.updated follows its window's data.updated and names the scored days they touched.
        const scores = ofType(events, "scores.updated")
        expect(scores.length).toBeGreaterThan(0)
        let windowData: Array<SentEvent> = []
        for (const event of events) {
          if (event.type === "data.updated") windowData.push(event)
          if (event.type !== "scores.updated") continue
          const dates = event.data.dates as Array<string>
          expect(dates).toEqual([...new Set(dates)].sort())
          const touched = windowData.filter((e) => scored.includes(e.data.dataType))
          expect(touched.length).toBeGreaterThan(0)
          const first = touched.map((e) => e.data.from).sort()[0]!
          const last = touched.map((e) => e.data.to).sort().at(-1)!
          expect(dates[0]).toBe(first)
          expect(dates.at(-1)).toBe(last)
          windowData = []
        }
        expect([...new Set(scores.flatMap((e) => e.data.dates as Array<string>))].sort()).toEqual(
          yield* scoredDates(connectionId)
        )
      }),
    200_000
  )

  it.effect(
    "disconnecting writes connection.deleted and no connection.updated after it; deleting the user writes " +
      "user.deleted once, then its connections' Stopped; a rolled-back change writes nothing",
    () =>
      Effect.gen(function*() {
        const { apiKey, app, token, user } = yield* createUser(`events-delete-${simulatedUser("u")}`)
        const all = yield* addEndpoint(app.id)
        const dexcom = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
        yield* waitForSync(user.id, token, dexcom.connectionId, { timeout: "120 seconds" })
        const fitbit = yield* connect(user.id, token, "Fitbit", simulatedUser("fitbit"))
        yield* waitForSync(user.id, token, fitbit.connectionId, { timeout: "120 seconds" })
        const sql = yield* SqlClient.SqlClient

        // Rolled back: the status change and its event go together.
        const before = yield* eventCount(app.id)
        const rolledBack = yield* Effect.flatMap(ConnectionEvents, (events) =>
          events.markReauthorize(dexcom.connectionId, "a change that rolls back").pipe(
            Effect.zipRight(Effect.fail("rolled back")),
            sql.withTransaction,
            Effect.either
          )).pipe(Effect.provide(ConnectionEvents.Default))
        expect(rolledBack._tag).toBe("Left")
        expect(yield* eventCount(app.id)).toBe(before)
        const listed = yield* listConnections(user.id, token)
        expect(
          listed.find((c: any) =>
            c.id === dexcom.connectionId
          ).status
        ).toBe("Active")
        const users = yield* Users
        const undone = yield* users.softDelete(app.id, user.id).pipe(
          Effect.zipRight(Effect.fail("rolled back")),
          sql.withTransaction,
          Effect.either
        )
        expect(undone._tag).toBe("Left")
        expect(yield* eventCount(app.id)).toBe(before)
        const still = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
        expect(json(still).status).toBe("Active")

        // Disconnect: connection.deleted is the connection's last event, though its sync stops after.
        const deleted = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${dexcom.connectionId}`, {
          bearer: token
        })
        expect(deleted.status, preview(deleted)).toBe(204)
        yield* eventually(syncStateOf(dexcom.connectionId), (state) => state === "Stopped", "the sync stopped")
        const afterDisconnect = yield* sentTo(all)
        const ofDexcom = afterDisconnect.filter((e) => e.data.connectionId === dexcom.connectionId)
        expect(ofDexcom.at(-1)!.type).toBe("connection.deleted")
        expect(ofDexcom.at(-1)!.data).toEqual({
          userId: user.id,
          connectionId: dexcom.connectionId,
          provider: "Dexcom"
        })
        expect(ofType(ofDexcom, "connection.deleted")).toHaveLength(1)
        // An unknown connection is a 404 and writes nothing.
        const again = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${dexcom.connectionId}`, {
          bearer: token
        })
        expect(again.status, preview(again)).toBe(404)
        expect(yield* eventCount(app.id)).toBe(afterDisconnect.length)

        // Deleting the user: user.deleted, then the Fitbit connection's Stopped (written before the 204).
        const gone = yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })
        expect(gone.status, preview(gone)).toBe(204)
        const afterDelete = (yield* sentTo(all)).slice(afterDisconnect.length)
        expect(afterDelete.map((e) => [e.type, e.data.connectionId ?? null, e.data.syncState ?? null])).toEqual([
          ["user.deleted", null, null],
          ["connection.updated", fitbit.connectionId, "Stopped"]
        ])
        expect(afterDelete[0]!.data).toEqual({ userId: user.id, externalUserId: user.externalUserId })
        expect(afterDelete[1]!.data).toMatchObject({ status: "Active", reason: "user is inactive" })
        // Deleting it again changes nothing and writes nothing.
        const twice = yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })
        expect(twice.status, preview(twice)).toBe(204)
        expect(yield* eventCount(app.id)).toBe(afterDisconnect.length + 2)
      }),
    300_000
  )

  it.effect(
    "a deregistration at the provider writes connection.updated Reauthorize with the reason; connecting again " +
      "makes the same connection Active with connection.updated, not connection.created",
    () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser(`events-reauth-${simulatedUser("u")}`)
        const all = yield* addEndpoint(app.id)
        const garminUser = simulatedUser("garmin")
        const { connectionId } = yield* connect(user.id, token, "Garmin", garminUser)
        const connection = yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
        const before = (yield* sentTo(all)).length
        const credentials = yield* secretOf("Garmin")
        const pushed = yield* send("POST", `/webhooks/garmin/${app.id}`, {
          body: JSON.stringify({ deregistrations: [{ userId: connection.providerUserId }] }),
          headers: { "garmin-client-id": credentials.clientId }
        })
        expect(pushed.status, preview(pushed)).toBe(200)
        const stopped = yield* eventually(
          sentTo(all),
          (list) => list.slice(before).some((e) => e.data.syncState === "Stopped"),
          "the sync stopped"
        )
        const reason = "The user withdrew access at the provider (deregistration): the user must connect again"
        expect(connectionStates(stopped.slice(before))).toEqual([
          ["connection.updated", "Reauthorize", "Idle", reason],
          ["connection.updated", "Reauthorize", "Stopped", reason]
        ])

        const again = yield* connect(user.id, token, "Garmin", garminUser)
        expect(again.connectionId).toBe(connectionId)
        yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
        const after = (yield* sentTo(all)).slice(stopped.length)
        expect(connectionStates(after)).toEqual([
          ["connection.updated", "Active", "Stopped", "connection is Reauthorize"],
          ["connection.updated", "Active", "Backfilling", null],
          ["connection.updated", "Active", "Idle", null]
        ])
        expect(ofType(after, "sync.backfill.completed")).toHaveLength(1)
      }),
    300_000
  )

  it.effect(
    "WHOOP: a pushed sleep and a deleted workout each write data.updated and scores.updated for their day; " +
      "a refresh token the provider refuses writes connection.updated Reauthorize",
    () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser(`events-whoop-${simulatedUser("u")}`)
        const all = yield* addEndpoint(app.id)
        const { connectionId } = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop"))
        const connection = yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
        const sql = yield* SqlClient.SqlClient
        const secret = Redacted.value((yield* secretOf("WHOOP")).clientSecret)
        const deliver = (type: string, id: string) => {
          const body = JSON.stringify({ user_id: Number(connection.providerUserId), id, type, trace_id: "t-1" })
          const timestamp = String(Date.now())
          return send("POST", `/webhooks/whoop/${app.id}`, {
            body,
            headers: {
              "x-whoop-signature": Simulators.whoopSignature(secret, timestamp, body),
              "x-whoop-signature-timestamp": timestamp
            }
          })
        }

        // A sleep the store lost comes back through the provider's notification.
        const [sleep] = yield* sql<{ providerRecordId: string; date: string }>`
          select provider_record_id, date::text as date from sleep_sessions where connection_id = ${connectionId}
          order by start_at desc limit 1
        `
        yield* sql`delete from sleep_sessions where connection_id = ${connectionId}
          and provider_record_id = ${sleep!.providerRecordId}`
        const before = (yield* sentTo(all)).length
        const pushed = yield* deliver("sleep.updated", sleep!.providerRecordId)
        expect(pushed.status, preview(pushed)).toBe(204)
        const stored = yield* eventually(
          sentTo(all),
          (list) => ofType(list.slice(before), "scores.updated").length === 1,
          "the sleep's events"
        )
        // The sleep, and whatever else its notification read that changed (its cycle's strain so far),
        // then the scores of the days touched.
        const sleepEvents = stored.slice(before)
        expect(sleepEvents.at(-1)!.type).toBe("scores.updated")
        const updates = sleepEvents.slice(0, -1)
        expect(updates.every((e) => e.type === "data.updated")).toBe(true)
        expect(updates.filter((e) => e.data.dataType === "sleep").map((e) => [e.data.from, e.data.to])).toEqual([
          [sleep!.date, sleep!.date]
        ])
        const touched = new Set<string>()
        for (const e of updates) for (let d = e.data.from; d <= e.data.to; d = addDays(d, 1)) touched.add(d)
        expect(sleepEvents.at(-1)!.data).toEqual({ userId: user.id, dates: Array.from(touched).sort() })

        // A workout the provider deleted.
        const [workout] = yield* sql<{ providerRecordId: string; date: string }>`
          select provider_record_id, date::text as date from workouts where connection_id = ${connectionId} limit 1
        `
        if (workout !== undefined) {
          const deleted = yield* deliver("workout.deleted", workout.providerRecordId)
          expect(deleted.status, preview(deleted)).toBe(204)
          const after = yield* eventually(
            sentTo(all),
            (list) => list.length >= stored.length + 2,
            "the deletion's events"
          )
          expect(after.slice(stored.length).map((e) => [e.type, e.data.dataType ?? null, e.data.from ?? e.data.dates]))
            .toEqual([
              ["data.updated", "workouts", workout.date],
              ["scores.updated", null, [workout.date]]
            ])
        }

        // The provider refuses the refresh token: Reauthorize, with its event, in the refresh's transaction.
        const count = yield* eventCount(app.id)
        yield* sim("WHOOP", "POST", "revoke", { userId: connection.providerUserId })
        const tokens = yield* ConnectionTokens
        const refused = yield* Effect.flip(tokens.fresh(connectionId, { force: true }))
        expect(refused).toMatchObject({ _tag: "ConnectionUnusable", status: "Reauthorize" })
        const last = (yield* sentTo(all)).slice(count)
        expect(connectionStates(last)).toEqual([[
          "connection.updated",
          "Reauthorize",
          "Idle",
          "The provider refused the refresh token (invalid_grant): the user must connect again"
        ]])
      }),
    200_000
  )
})
