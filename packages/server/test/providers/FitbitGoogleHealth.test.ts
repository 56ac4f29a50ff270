/**
 * Fitbit through the Google Health API, end to end over HTTP in the sandbox: the Google consent
 * flow connects and its civil days are served by endpoints 10 and 11 exactly as the Google
 * Health API simulator rolls them up; a consent without the activity scope ends with
 * `insufficient_scope`; a connection made with the retired Fitbit Web API is marked
 * `Reauthorize` with a reason the app can show (migration 0009); and a 410 Gone from Google during
 * a sync does the same at run time.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { healthUserIdOf } from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import fitbitGoogleHealth, {
  fitbitWebApiRetiredReason
} from "../../src/platform/migrations/0009_fitbit_google_health.js"
import { connect, consent, listConnections, redirectUrl, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const activityScope = "https://www.googleapis.com/auth/googlehealth.activity_and_fitness.readonly"
const settingsScope = "https://www.googleapis.com/auth/googlehealth.settings.readonly"
const sleepScope = "https://www.googleapis.com/auth/googlehealth.sleep.readonly"
const healthMetricsScope = "https://www.googleapis.com/auth/googlehealth.health_metrics_and_measurements.readonly"

const civil = (date: string) => ({
  date: { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) }
})

/** One civil day of one data type, as the simulator rolls it up with the connection's token. */
const rolledUp = (connectionId: string, dataType: string, date: string) =>
  Effect.gen(function*() {
    const stored = yield* Effect.flatMap(ConnectionTokens, (tokens) => tokens.stored(connectionId))
    const reply = yield* send("POST", `/sandbox/fitbit/v4/users/me/dataTypes/${dataType}/dataPoints:dailyRollUp`, {
      bearer: Redacted.value(stored.accessToken),
      json: { range: { start: civil(date), end: civil(addDays(date, 1)) }, windowSizeDays: 1 }
    })
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as any).rollupDataPoints[0]
  })

/** The Fitbit entry of endpoint 15 (the provider listing with the user's connection). */
const fitbitEntry = (userId: string, token: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", `/api/v1/users/${userId}/connections/providers`, { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as Array<any>).find((entry) => entry.provider.name === "Fitbit")
  })

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })(
  "Fitbit through the Google Health API",
  (it) => {
    it.effect("connects through Google's consent and serves the civil days the Google Health API rolls up", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`fitbit-google-${simulatedUser("u")}`)
        const account = simulatedUser("fitbit")
        const { connectionId, session } = yield* connect(user.id, token, "Fitbit", account)
        const authorization = new URL(session.authorizationUrl)
        expect(authorization.pathname).toBe("/sandbox/fitbit/o/oauth2/v2/auth")
        expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
          // activity (required), sleep and health metrics
          scope: `${activityScope} ${sleepScope} ${healthMetricsScope}`,
          access_type: "offline",
          prompt: "consent",
          code_challenge_method: "S256"
        })
        const connection = yield* waitForSync(user.id, token, connectionId)
        // the user's Google Health id, from users.getIdentity
        expect(connection.providerUserId).toBe(healthUserIdOf(account))
        expect(connection.statusReason).toBeNull()
        expect(connection.quarantinedRecords).toBe(0)

        const to = localToday(new Date(), null)
        const reply = yield* send(
          "GET",
          `/api/v1/users/${user.id}/connections/activity?from=${addDays(to, -29)}&to=${to}&provider=Fitbit`,
          { bearer: token }
        )
        expect(reply.status, preview(reply)).toBe(200)
        const days = json(reply) as Array<any>
        expect(days.length).toBeGreaterThanOrEqual(29)

        for (const date of [addDays(to, -2), addDays(to, -9), addDays(to, -20)]) {
          const steps = Number((yield* rolledUp(connectionId, "steps", date)).steps.countSum)
          const millimetres = Number((yield* rolledUp(connectionId, "distance", date)).distance.millimetersSum)
          const kcal = (yield* rolledUp(connectionId, "total-calories", date)).totalCalories.kcalSum
          const levels = (yield* rolledUp(connectionId, "active-minutes", date)).activeMinutes
            .activeMinutesRollupByActivityLevel as Array<{ activityLevel: string; activeMinutesSum: string }>
          const minutes = (level: string) =>
            Number(levels.find((l) => l.activityLevel === level)?.activeMinutesSum ?? 0)
          expect(days.find((d) => d.date === date), date).toMatchObject({
            connectionId,
            provider: "Fitbit",
            date,
            steps,
            caloriesOut: kcal,
            distanceMeters: expect.closeTo(millimetres / 1000, 6),
            lightActiveMinutes: minutes("LIGHT"),
            moderateActiveMinutes: minutes("MODERATE"),
            vigorousActiveMinutes: minutes("VIGOROUS")
          })
          // endpoint 11: the day with Google's points as its raw record
          const single = yield* send("GET", `/api/v1/users/${user.id}/connections/${connectionId}/activity/${date}`, {
            bearer: token
          })
          expect(single.status, preview(single)).toBe(200)
          const body = json(single) as any
          expect(body).toMatchObject({ steps, distance: expect.closeTo(millimetres / 1_000_000, 9) })
          expect(JSON.parse(body.rawJson).steps.steps).toEqual({ countSum: String(steps) })
        }
        // The backfill read 14-day windows, one dailyRollUp per data type, never past tomorrow.
        const reads = yield* simCalls("Fitbit")
        const rollUps = reads.filter((c) =>
          c.path.endsWith("dataPoints:dailyRollUp") && c.userId === healthUserIdOf(account)
        )
        expect(rollUps.length).toBeGreaterThan(0)
        expect(rollUps.every((c) => c.method === "POST" && c.status === 200)).toBe(true)
      }))

    it.effect("a consent without the activity scope redirects with insufficient_scope, not exchange_failed", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`fitbit-unticked-${simulatedUser("u")}`)
        const reply = yield* send("POST", `/api/v1/users/${user.id}/connections/sessions`, {
          bearer: token,
          json: { provider: "Fitbit", redirectUrl, scopes: `${activityScope} ${settingsScope}` }
        })
        expect(reply.status, preview(reply)).toBe(200)
        const session = json(reply) as { authorizationUrl: string }
        // Google's granular consent: the user leaves the activity box unticked
        const { final } = yield* consent(session.authorizationUrl, "approve", simulatedUser("unticked"), {
          consent_form: "1",
          scope: settingsScope
        })
        expect(`${final.origin}${final.pathname}`).toBe(redirectUrl)
        expect(Object.fromEntries(final.searchParams)).toEqual({
          success: "false",
          provider: "Fitbit",
          error: "insufficient_scope",
          missing_scope: activityScope
        })
        expect(yield* listConnections(user.id, token)).toEqual([])
      }))

    it.effect("a Web API connection is marked Reauthorize with a reason; connected again through Google its days are replaced, not doubled", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const old = yield* createUser(`fitbit-webapi-${simulatedUser("u")}`)
        const account = simulatedUser("webapi")
        const oldConnection = yield* connect(old.user.id, old.token, "Fitbit", account)
        yield* waitForSync(old.user.id, old.token, oldConnection.connectionId)
        // what a Web API connection holds: Fitbit's scopes, its user id and days keyed `<Fitbit id>:<date>`
        yield* sql`
          update connections set scopes = 'activity heartrate profile sleep', provider_user_id = 'GGNJL9'
          where id = ${oldConnection.connectionId}
        `
        yield* sql`
          update daily_activity set provider_record_id = 'GGNJL9:' || to_char(date, 'YYYY-MM-DD')
          where connection_id = ${oldConnection.connectionId}
        `
        const stored = (yield* sql<{ count: number }>`
          select count(*)::int as count from daily_activity where connection_id = ${oldConnection.connectionId}
        `)[0]!.count
        expect(stored).toBeGreaterThanOrEqual(29)
        const current = yield* createUser(`fitbit-current-${simulatedUser("u")}`)
        const currentConnection = yield* connect(current.user.id, current.token, "Fitbit", simulatedUser("google"))
        yield* waitForSync(current.user.id, current.token, currentConnection.connectionId)

        yield* fitbitGoogleHealth

        const entry = yield* fitbitEntry(old.user.id, old.token)
        expect(entry.connection).toMatchObject({
          id: oldConnection.connectionId,
          status: "Reauthorize",
          statusReason: fitbitWebApiRetiredReason
        })
        expect(fitbitWebApiRetiredReason).toMatch(/connect Fitbit again/)
        expect((yield* listConnections(old.user.id, old.token)).map((c) => c.id)).not.toContain(
          oldConnection.connectionId
        )
        const untouched = yield* fitbitEntry(current.user.id, current.token)
        expect(untouched.connection).toMatchObject({
          id: currentConnection.connectionId,
          status: "Active",
          statusReason: null
        })
        const keys = yield* sql<{ providerRecordId: string; date: string }>`
          select provider_record_id, to_char(date, 'YYYY-MM-DD') as date from daily_activity
          where connection_id = ${oldConnection.connectionId}
        `
        expect(keys.length).toBe(stored)
        expect(keys.every((k) => k.providerRecordId === k.date)).toBe(true)

        // The user connects again through Google: the same connection, Active, its days read again in place.
        const since = new Date()
        const again = yield* connect(old.user.id, old.token, "Fitbit", account)
        expect(again.connectionId).toBe(oldConnection.connectionId)
        const resynced = yield* waitForSync(old.user.id, old.token, oldConnection.connectionId, { since })
        expect(resynced).toMatchObject({
          status: "Active",
          statusReason: null,
          providerUserId: healthUserIdOf(account)
        })
        const perDate = yield* sql<{ count: number }>`
          select count(*)::int as count from daily_activity
          where connection_id = ${oldConnection.connectionId} group by date having count(*) > 1
        `
        expect(perDate).toEqual([])
      }))

    it.effect("a 410 Gone from Google during a sync marks the connection Reauthorize with a reason", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`fitbit-gone-${simulatedUser("u")}`)
        const account = simulatedUser("gone")
        yield* sim("Fitbit", "POST", "faults", {
          path: "/v4/users/me/dataTypes/*",
          method: "POST",
          kind: "gone",
          count: 1000
        })
        const { connectionId } = yield* connect(user.id, token, "Fitbit", account)
        const entry = yield* eventually(
          fitbitEntry(user.id, token),
          (found) => found.connection?.status === "Reauthorize",
          "the connection to need reauthorization",
          { every: "200 millis", within: "60 seconds" }
        )
        yield* sim("Fitbit", "DELETE", "faults")
        expect(entry.connection).toMatchObject({
          id: connectionId,
          providerUserId: healthUserIdOf(account),
          status: "Reauthorize",
          syncState: "Stopped"
        })
        expect(entry.connection.statusReason).toMatch(/^Fitbit no longer accepts this connection: .*410/)
        // the first 410 stops the sync and nothing is retried (only this test injects the fault); the windows a
        // backfill reads at once (the one it stores and two ahead) may each meet it
        const gone = (yield* simCalls("Fitbit", { method: "POST" })).filter((c) => c.fault === "gone")
        expect(gone.every((c) => c.status === 410)).toBe(true)
        expect(gone.length).toBeGreaterThanOrEqual(1)
        expect(gone.length).toBeLessThanOrEqual(3)
      }))
  }
)
