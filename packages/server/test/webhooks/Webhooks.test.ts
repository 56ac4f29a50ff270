/**
 * Provider notifications in, end to end in the sandbox: the Google Health API's subscriber
 * verification and notifications (Fitbit), WHOOP's signed webhooks, Garmin's push, ping and deregistration. A
 * delivery that fails its check is refused and queues nothing; an accepted one makes the
 * connection's sync fetch (or store) what it names.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import * as Simulators from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ProviderAccess } from "../../src/connections/ProviderAccess.js"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { connect, listConnections, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { expectError, preview, send } from "../fixtures/Http.js"
import { eventually as poll } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

/** Messages waiting in the cluster's storage: a refused delivery must not add any. */
const storedMessages = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ count: number }>`select count(*)::int as count from cluster_messages`
).pipe(Effect.map((rows) => rows[0]!.count))

/** Polls `check` until it holds (a sync running in the background), failing after 30 s. */
const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string) =>
  poll(check, done, what, { within: "30 seconds" })

const rowCount = (table: string, connectionId: string, where: string, value: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ count: number }>`
      select count(*)::int as count from ${sql(table)}
      where connection_id = ${connectionId} and ${sql(where)} = ${value}
    `).pipe(Effect.map((rows) => rows[0]!.count))

const secretOf = (provider: "Fitbit" | "WHOOP" | "Garmin") =>
  Effect.map(ProviderAccess, (access) => access.sandboxCredentials(provider))

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })("webhooks", (it) => {
  it.effect("Fitbit (Google Health API): the verification gets 201 with the Authorization value, 401 without; no subscription call", () =>
    Effect.gen(function*() {
      const { app, token, user } = yield* createUser(`fitbit-verify-${simulatedUser("u")}`)
      const authorization = (yield* ProviderAccess).sandboxVerificationCode("Fitbit")
      const verification = JSON.stringify({ type: "verification" })
      const right = yield* send("POST", `/webhooks/fitbit/${app.id}`, {
        body: verification,
        headers: { authorization }
      })
      expect(right.status, preview(right)).toBe(201)
      expectError(yield* send("POST", `/webhooks/fitbit/${app.id}`, { body: verification }), 401, "Unauthorized")
      expectError(
        yield* send("POST", `/webhooks/fitbit/${app.id}`, {
          body: verification,
          headers: { authorization: "Bearer x" }
        }),
        401,
        "Unauthorized"
      )
      expectError(yield* send("GET", `/webhooks/fitbit/${app.id}`), 404, "NotFound")

      // The operator's subscriber (AUTOMATIC policy) covers every consenting user: nothing is subscribed per user.
      const { connectionId } = yield* connect(user.id, token, "Fitbit", simulatedUser("fitbit"))
      yield* waitForSync(user.id, token, connectionId)
      const calls = yield* simCalls("Fitbit")
      expect(calls.filter((c) => !c.path.includes("dataPoints:dailyRollUp")).map((c) => `${c.method} ${c.path}`))
        .toEqual(expect.arrayContaining(["POST /token", "GET /v4/users/me/identity"]))
      expect(
        calls.every((c) => c.path.startsWith("/o/oauth2/") || c.path === "/token" || c.path.startsWith("/v4/users/me/"))
      )
        .toBe(true)
    }))

  it.effect("Fitbit (Google Health API): a signed notification re-reads its days; a wrong Authorization or signature is 401 and queues nothing", () =>
    Effect.gen(function*() {
      const { app, token, user } = yield* createUser(`fitbit-notify-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "Fitbit", simulatedUser("fitbit"))
      const connection = yield* waitForSync(user.id, token, connectionId)
      const sql = yield* SqlClient.SqlClient
      const date = addDays(localToday(new Date(), null), -2)
      const next = addDays(date, 1)
      yield* sql`delete from daily_activity where connection_id = ${connectionId} and date = ${date}`
      // as Google POSTs it: only which data changed, for whom and when
      const body = JSON.stringify({
        data: {
          version: "1",
          healthUserId: connection.providerUserId,
          operation: "UPSERT",
          dataType: "steps",
          intervals: [{
            physicalTimeInterval: { startTime: `${date}T00:00:00Z`, endTime: `${next}T00:00:00Z` },
            civilIso8601TimeInterval: { startTime: `${date}T00:00:00`, endTime: `${next}T00:00:00` }
          }]
        }
      })
      const authorization = (yield* ProviderAccess).sandboxVerificationCode("Fitbit")
      // signed as the sandbox's simulator signs (the sandbox hands its public keys to the receiver)
      const signature = Simulators.googleHealthSimulatorSignature(
        Redacted.value((yield* secretOf("Fitbit")).clientSecret),
        body
      )

      const before = yield* storedMessages
      expectError(
        yield* send("POST", `/webhooks/fitbit/${app.id}`, {
          body,
          headers: { authorization: "Bearer forged", "x-healthapi-signature": signature }
        }),
        401,
        "Unauthorized"
      )
      expectError(yield* send("POST", `/webhooks/fitbit/${app.id}`, { body }), 401, "Unauthorized")
      // the right Authorization without the signature, or with one of another body
      expectError(
        yield* send("POST", `/webhooks/fitbit/${app.id}`, { body, headers: { authorization } }),
        401,
        "Unauthorized"
      )
      expectError(
        yield* send("POST", `/webhooks/fitbit/${app.id}`, {
          body,
          headers: {
            authorization,
            "x-healthapi-signature": Simulators.googleHealthSimulatorSignature("another secret", body)
          }
        }),
        401,
        "Unauthorized"
      )
      expect(yield* storedMessages).toBe(before)

      const accepted = yield* send("POST", `/webhooks/fitbit/${app.id}`, {
        body,
        headers: { authorization, "x-healthapi-signature": signature }
      })
      expect(accepted.status, preview(accepted)).toBe(204)
      expect(accepted.text).toBe("")
      yield* eventually(rowCount("daily_activity", connectionId, "date", date), (n) => n === 1, "the day re-read")
    }))

  it.effect("WHOOP: a signed sleep.updated fetches the sleep; stale or forged deliveries get 401; deletions remove", () =>
    Effect.gen(function*() {
      const { app, token, user } = yield* createUser(`whoop-notify-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop"))
      const connection = yield* waitForSync(user.id, token, connectionId)
      const sql = yield* SqlClient.SqlClient
      const [sleep] = yield* sql<{ providerRecordId: string }>`
        select provider_record_id from sleep_sessions where connection_id = ${connectionId}
        order by start_at desc limit 1
      `
      expect(sleep).toBeDefined()
      const sleepId = sleep!.providerRecordId
      yield* sql`delete from sleep_sessions where connection_id = ${connectionId} and provider_record_id = ${sleepId}`
      const credentials = yield* secretOf("WHOOP")
      const secret = Redacted.value(credentials.clientSecret)
      const deliver = (type: string, id: string, options: { at?: number; secret?: string } = {}) => {
        const body = JSON.stringify({ user_id: Number(connection.providerUserId), id, type, trace_id: "t-1" })
        const timestamp = String(options.at ?? Date.now())
        return send("POST", `/webhooks/whoop/${app.id}`, {
          body,
          headers: {
            "x-whoop-signature": Simulators.whoopSignature(options.secret ?? secret, timestamp, body),
            "x-whoop-signature-timestamp": timestamp
          }
        })
      }

      const before = yield* storedMessages
      expectError(yield* deliver("sleep.updated", sleepId, { secret: "forged" }), 401, "Unauthorized")
      expectError(yield* deliver("sleep.updated", sleepId, { at: Date.now() - 10 * 60_000 }), 401, "Unauthorized")
      expect(yield* storedMessages).toBe(before)

      const accepted = yield* deliver("sleep.updated", sleepId)
      expect(accepted.status, preview(accepted)).toBe(204)
      yield* eventually(
        rowCount("sleep_sessions", connectionId, "provider_record_id", sleepId),
        (n) => n === 1,
        "the sleep fetched"
      )

      const [workout] = yield* sql<{ providerRecordId: string }>`
        select provider_record_id from workouts where connection_id = ${connectionId} limit 1
      `
      if (workout !== undefined) {
        const deleted = yield* deliver("workout.deleted", workout.providerRecordId)
        expect(deleted.status, preview(deleted)).toBe(204)
        yield* eventually(
          rowCount("workouts", connectionId, "provider_record_id", workout.providerRecordId),
          (n) => n === 0,
          "the workout removed"
        )
      }
    }))

  it.effect("Garmin: a push updates the summary in place, a ping is pulled, a deregistration ends the grant", () =>
    Effect.gen(function*() {
      const { app, token, user } = yield* createUser(`garmin-notify-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "Garmin", simulatedUser("garmin"))
      const connection = yield* waitForSync(user.id, token, connectionId)
      const credentials = yield* secretOf("Garmin")
      const date = addDays(localToday(new Date(), null), -3)
      const daily = Simulators.garminDaily("pulsebridge-sandbox", connection.providerUserId, date, 1) as any
      const pushed = { ...daily, userId: connection.providerUserId, steps: 123_456 }
      const push = (clientId: string | undefined, body: unknown) =>
        send("POST", `/webhooks/garmin/${app.id}`, {
          body: JSON.stringify(body),
          headers: clientId === undefined ? {} : { "garmin-client-id": clientId }
        })

      const before = yield* storedMessages
      expectError(yield* push(undefined, { dailies: [pushed] }), 401, "Unauthorized")
      expectError(yield* push("someone-else", { dailies: [pushed] }), 401, "Unauthorized")
      expect(yield* storedMessages).toBe(before)

      const accepted = yield* push(credentials.clientId, { dailies: [pushed] })
      expect(accepted.status, preview(accepted)).toBe(200)
      const stepsOn = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ steps: number; count: number }>`
          select max(steps) as steps, count(*)::int as count from daily_activity
          where connection_id = ${connectionId} and provider_record_id = ${`${connection.providerUserId}:${date}`}
        `).pipe(Effect.map((rows) => rows[0]!))
      const updated = yield* eventually(stepsOn, (row) => row.steps === 123_456, "the pushed summary stored")
      expect(updated.count, "updated in place, not duplicated").toBe(1)

      const now = Math.floor(Date.now() / 1000)
      const window = { uploadStartTimeInSeconds: now - 86_000, uploadEndTimeInSeconds: now }
      const ping = yield* push(credentials.clientId, {
        dailies: [{
          userId: connection.providerUserId,
          ...window,
          callbackURL: `https://localhost/sandbox/garmin/wellness-api/rest/dailies?${new URLSearchParams({
            uploadStartTimeInSeconds: String(window.uploadStartTimeInSeconds),
            uploadEndTimeInSeconds: String(window.uploadEndTimeInSeconds)
          })}`
        }]
      })
      expect(ping.status, preview(ping)).toBe(200)
      const pulls = () =>
        simCalls("Garmin", { path: "/wellness-api/rest/dailies" }).pipe(
          Effect.map((calls) =>
            calls.filter((c) => c.params["uploadStartTimeInSeconds"] === String(window.uploadStartTimeInSeconds))
          )
        )
      yield* eventually(pulls(), (calls) => calls.length === 1, "the ping's callback pulled")

      const deregistered = yield* push(credentials.clientId, {
        deregistrations: [{ userId: connection.providerUserId }]
      })
      expect(deregistered.status, preview(deregistered)).toBe(200)
      const connections = yield* listConnections(user.id, token)
      expect(connections.find((c: any) => c.id === connectionId)).toBeUndefined()
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ status: string }>`select status from connections where id = ${connectionId}`
      expect(row!.status).toBe("Reauthorize")
    }))

  it.effect("deliveries for an unknown app or a malformed body are refused", () =>
    Effect.gen(function*() {
      const { app } = yield* createUser(`webhook-unknown-${simulatedUser("u")}`)
      expectError(yield* send("POST", "/webhooks/whoop/not-an-app", { body: "{}" }), 404, "NotFound")
      expectError(
        yield* send("POST", "/webhooks/fitbit/00000000-0000-4000-8000-000000000000", { body: "[]" }),
        404,
        "NotFound"
      )
      const credentials = yield* secretOf("Garmin")
      const malformed = yield* send("POST", `/webhooks/garmin/${app.id}`, {
        body: "{\"dailies\": [",
        headers: { "garmin-client-id": credentials.clientId }
      })
      expectError(malformed, 400, "BadRequest")
    }))
})
