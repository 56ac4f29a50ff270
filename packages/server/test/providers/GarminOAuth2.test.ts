/**
 * Garmin on OAuth 2.0, end to end through HTTP in the sandbox: an app whose Garmin credentials are
 * OAuth 2.0 ones connects a user with PKCE (endpoint 23) and reads the user's days once Garmin
 * delivers them; an OAuth 1.0a connection moves to OAuth 2.0 by token exchange with no step of the
 * user and keeps syncing (and the operator's report says so); a day uploaded partial then full is
 * one record with the full values; a permission change narrows what is read; a revoked token
 * (Garmin's 403) moves the connection to `Reauthorize` with the reason.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { AppId } from "@pulsebridge/domain"
import type { GarminSimulator, SimulatorRegistry } from "@pulsebridge/sandbox"
import { garminDaily, makeGarminSimulator, simulatorRegistry } from "@pulsebridge/sandbox"
import { createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { ProviderCredentials } from "../../src/apps/ProviderCredentials.js"
import { ProviderAccess } from "../../src/connections/ProviderAccess.js"
import { describeExchange, TokenExchange } from "../../src/connections/TokenExchange.js"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { SyncQueue } from "../../src/sync/SyncQueue.js"
import { connect, listConnections, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

/** The sandbox's Garmin simulator, kept to drive what Garmin does on its own (deliveries, revocations). */
let garmin: GarminSimulator | undefined
const simulators: SimulatorRegistry = simulatorRegistry.map((entry) =>
  entry.provider === "Garmin"
    ? {
      ...entry,
      make: (options) => {
        garmin = makeGarminSimulator(options)
        return garmin
      }
    }
    : entry
)
const sim = () => {
  if (garmin === undefined) throw new Error("the Garmin simulator is not mounted")
  return garmin
}

const seed = "pulsebridge-sandbox"

/** The app's Garmin credentials: the sandbox client, as OAuth 1.0a or OAuth 2.0 ones. */
const setGarminCredentials = (appId: AppId, authType: "OAuth1" | "OAuth2" | undefined) =>
  Effect.gen(function*() {
    const access = yield* ProviderAccess
    const sandbox = access.sandboxCredentials("Garmin")
    const credentials = yield* ProviderCredentials
    yield* credentials.set(appId, "Garmin", {
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
      authType
    })
  })

const webhookUrl = (appId: string) => Effect.map(TestServer, ({ baseUrl }) => `${baseUrl}/webhooks/garmin/${appId}`)

const connectionRow = (connectionId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      status: string
      statusReason: string | null
      scopes: string
      tokenSecretSealed: string | null
      refreshTokenSealed: string | null
      tokenExpiresAt: Date | null
    }>`
      select status, status_reason, scopes, token_secret_sealed, refresh_token_sealed, token_expires_at
      from connections where id = ${connectionId}
    `).pipe(Effect.map((rows) => rows[0]!))

/** The stored days of a connection: date, record id and steps. */
const storedDays = (connectionId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ date: string; providerRecordId: string; steps: number }>`
      select to_char(date, 'YYYY-MM-DD') as date, provider_record_id, steps from daily_activity
      where connection_id = ${connectionId} order by date
    `)

const activity = (userId: string, token: string, from: string, to: string) =>
  Effect.gen(function*() {
    const reply = yield* send(
      "GET",
      `/api/v1/users/${userId}/connections/activity?from=${from}&to=${to}&provider=Garmin`,
      { bearer: token }
    )
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as Array<{ date: string; steps: number; connectionId: string }>
  })

/** A user of a new app whose Garmin credentials are OAuth 2.0 ones, connected through the sandbox's PKCE flow. */
const connectedWithOAuth2 = (label: string) =>
  Effect.gen(function*() {
    const { app, token, user } = yield* createUser(`${label}-${simulatedUser("u")}`)
    yield* setGarminCredentials(app.id, "OAuth2")
    const { connectionId, session } = yield* connect(user.id, token, "Garmin", simulatedUser(label))
    const connection = yield* waitForSync(user.id, token, connectionId)
    return { app, token, user, connectionId, session, providerUserId: connection.providerUserId as string }
  })

layer(makeTestServer({ sandbox: true }, { simulators }), { timeout: "300 seconds", excludeTestServices: true })(
  "Garmin on OAuth 2.0",
  (it) => {
    it.effect("connects with OAuth 2.0 (PKCE, endpoint 23) and reads the days Garmin delivers after the backfill request", () =>
      Effect.gen(function*() {
        const { app, connectionId, providerUserId, session, token, user } = yield* connectedWithOAuth2("garmin-o2")
        const authorize = new URL(session.authorizationUrl)
        expect(authorize.pathname).toBe("/sandbox/garmin/oauth2Confirm")
        expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
        expect(authorize.searchParams.has("scope")).toBe(false)
        expect(authorize.searchParams.get("redirect_uri")).toMatch(/\/api\/v1\/connections\/callback$/)

        const row = yield* connectionRow(connectionId)
        expect(row.tokenSecretSealed).toBeNull()
        expect(row.refreshTokenSealed).not.toBeNull()
        expect(row.scopes.split(" ")).toEqual(expect.arrayContaining(["HEALTH_EXPORT", "HISTORICAL_DATA_EXPORT"]))
        const [listed] = (yield* listConnections(user.id, token)).filter((c: any) => c.id === connectionId)
        expect(listed.scopes).toBe(row.scopes)

        // Garmin refuses unsolicited pulls from OAuth 2.0 apps: the sync asked for backfills instead.
        const backfills = sim().control.calls({ path: "/wellness-api/rest/backfill/dailies" })
        expect(backfills.length).toBeGreaterThan(0)
        expect(backfills.every((c) => c.status === 202 && c.userId === providerUserId)).toBe(true)
        expect(sim().control.calls({ path: "/wellness-api/rest/dailies", userId: providerUserId })).toEqual([])

        // Garmin delivers what was asked for, by push, naming the user only.
        const deliveries = yield* sim().control.deliverBackfills(yield* webhookUrl(app.id))
        expect(deliveries.length).toBeGreaterThan(0)
        expect(deliveries.every((d) => d.status === 200)).toBe(true)
        const today = localToday(new Date(), null)
        const from = addDays(today, -20)
        const to = addDays(today, -3)
        // the days Garmin sends without calendarDate (about one in four; the simulated account is new each run, so
        // some runs have none in the range) are stored too, dated by their start
        const undated = Array.from({ length: 18 }, (_, i) => addDays(from, i))
          .filter((date) => !("calendarDate" in garminDaily(seed, providerUserId, date, 1)))
        const days = yield* eventually(
          activity(user.id, token, from, to),
          (found) => found.length >= 15 && undated.every((date) => found.some((day) => day.date === date)),
          "the delivered days stored"
        )
        const dates = days.map((d) => d.date)
        expect(new Set(dates).size).toBe(dates.length)
        for (const day of days) {
          expect(day.connectionId).toBe(connectionId)
          expect(day.steps).toBe(garminDaily(seed, providerUserId, day.date, 1).steps)
        }
        for (const date of undated) expect(dates).toContain(date)
        const stored = yield* storedDays(connectionId)
        expect(stored.every((d) => d.providerRecordId === `${providerUserId}:${d.date}`)).toBe(true)

        // A ping names the user only; its callbackURL, pull token included, is pulled as it is.
        const now = Math.floor(Date.now() / 1000)
        const pinged = yield* sim().control.pingDailies(yield* webhookUrl(app.id), {
          userId: providerUserId,
          uploadStartTimeInSeconds: now - 86_000,
          uploadEndTimeInSeconds: now
        })
        expect(pinged?.status).toBe(200)
        const pulls = Effect.sync(() =>
          sim().control.calls({ path: "/wellness-api/rest/dailies", userId: providerUserId, status: 200 })
        )
        const [pull] = yield* eventually(pulls, (calls) => calls.length === 1, "the ping's callback pulled")
        expect(pull!.params.token).toBeDefined()
        expect(pull!.params.uploadEndTimeInSeconds).toBe(String(now))
      }))

    it.effect("a day uploaded partial, then full under another summaryId, is one record with the full values; a bad daily is quarantined", () =>
      Effect.gen(function*() {
        const { app, connectionId, providerUserId, token, user } = yield* connectedWithOAuth2("garmin-days")
        const date = addDays(localToday(new Date(), null), -45)
        const partial = { userId: providerUserId, ...garminDaily(seed, providerUserId, date, 0.5) }
        const full = { userId: providerUserId, ...garminDaily(seed, providerUserId, date, 1) }
        expect(partial.summaryId).not.toBe(full.summaryId)
        // the full day arrives with an unreadable daily of another day beside it
        const bad = { ...full, summaryId: "x-bad", calendarDate: addDays(date, 1), steps: -1 }
        const clientId = (yield* ProviderAccess).sandboxCredentials("Garmin").clientId
        for (const dailies of [[partial], [bad, full]]) {
          const reply = yield* send("POST", `/webhooks/garmin/${app.id}`, {
            body: JSON.stringify({ dailies }),
            headers: { "garmin-client-id": clientId }
          })
          expect(reply.status, preview(reply)).toBe(200)
        }
        const onDate = storedDays(connectionId).pipe(Effect.map((rows) => rows.filter((r) => r.date === date)))
        const rows = yield* eventually(onDate, (found) => found[0]?.steps === full.steps, "the full day stored")
        expect(rows).toEqual([{ date, providerRecordId: `${providerUserId}:${date}`, steps: full.steps }])
        // the bad one is quarantined, counted on the connection, and stored nowhere else
        const listed = (yield* listConnections(user.id, token)).find((c: any) => c.id === connectionId)
        expect(listed.quarantinedRecords).toBe(1)
        expect((yield* storedDays(connectionId)).filter((r) => r.date === bad.calendarDate)).toEqual([])
      }))

    it.effect("a partial upload read after the full day does not replace it", () =>
      Effect.gen(function*() {
        const { app, connectionId, providerUserId } = yield* connectedWithOAuth2("garmin-late-partial")
        const date = addDays(localToday(new Date(), null), -50)
        const full = { userId: providerUserId, ...garminDaily(seed, providerUserId, date, 1) }
        const partial = { userId: providerUserId, ...garminDaily(seed, providerUserId, date, 0.25) }
        expect(partial.steps).toBeLessThan(full.steps)
        // A day after, stored last: once it is in, the deliveries before it have been applied.
        const marker = { userId: providerUserId, ...garminDaily(seed, providerUserId, addDays(date, 1), 1) }
        const clientId = (yield* ProviderAccess).sandboxCredentials("Garmin").clientId
        for (const dailies of [[full], [partial], [marker]]) {
          const reply = yield* send("POST", `/webhooks/garmin/${app.id}`, {
            body: JSON.stringify({ dailies }),
            headers: { "garmin-client-id": clientId }
          })
          expect(reply.status, preview(reply)).toBe(200)
        }
        yield* eventually(
          storedDays(connectionId),
          (rows) => rows.some((r) => r.date === addDays(date, 1)),
          "the last delivery stored"
        )
        const rows = (yield* storedDays(connectionId)).filter((r) => r.date === date)
        expect(rows).toEqual([{ date, providerRecordId: `${providerUserId}:${date}`, steps: full.steps }])
      }))

    it.effect("moves an OAuth 1.0a connection to OAuth 2.0 by token exchange, with no user step, and keeps syncing", () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser(`garmin-move-${simulatedUser("u")}`)
        yield* setGarminCredentials(app.id, undefined)
        const { callbackPath, connectionId } = yield* connect(user.id, token, "Garmin", simulatedUser("garmin-move"))
        expect(callbackPath).toMatch(/^\/api\/v1\/connections\/callback\/oauth1\?/)
        const connected = yield* waitForSync(user.id, token, connectionId)
        const providerUserId: string = connected.providerUserId
        const before = yield* storedDays(connectionId)
        expect(before.length).toBeGreaterThan(0)
        expect(before.every((d) => d.providerRecordId === `${providerUserId}:${d.date}`)).toBe(true)
        expect((yield* connectionRow(connectionId)).tokenSecretSealed).not.toBeNull()

        // Still OAuth 1.0a credentials: nothing can be exchanged yet.
        const exchange = yield* TokenExchange
        const early = yield* exchange.run({ appId: app.id })
        expect(early.map((r) => [r.connectionId, r.outcome])).toEqual([[connectionId, "skipped"]])
        expect(early[0]!.reason).toContain("not OAuth 2.0")

        // Garmin converted the app: the operator sets OAuth 2.0 credentials; the OAuth 1.0a ones are kept.
        yield* setGarminCredentials(app.id, "OAuth2")
        const listing = yield* Effect.flatMap(ProviderCredentials, (c) => c.list(app.id))
        expect(listing.find((c) => c.provider === "Garmin")).toMatchObject({
          authType: "OAuth2",
          oauth1ClientId: expect.any(String)
        })
        sim().control.clearCalls()
        const results = yield* exchange.run({ appId: app.id })
        expect(results).toEqual([{
          connectionId,
          appId: app.id,
          provider: "Garmin",
          providerUserId,
          outcome: "migrated",
          reason: null
        }])
        const report = describeExchange(results)
        expect(report).toContain(`${connectionId}  Garmin  user ${providerUserId}  migrated`)
        expect(report).toContain("1 migrated, 0 failed, 0 skipped.")

        const moved = yield* connectionRow(connectionId)
        expect(moved.status).toBe("Active")
        expect(moved.tokenSecretSealed).toBeNull()
        expect(moved.refreshTokenSealed).not.toBeNull()
        const lifetime = moved.tokenExpiresAt!.getTime() - Date.now()
        expect(lifetime).toBeGreaterThan(86_000_000)
        expect(lifetime).toBeLessThanOrEqual(86_400_000)
        // no consent page, no authorization code: only the exchange (and the permissions read)
        const calls = sim().control.calls()
        expect(calls.filter((c) => c.path.includes("oauth2Confirm") || c.path.includes("oauthConfirm"))).toEqual([])
        expect(calls.filter((c) => c.path === "/partner-gateway/rest/user/token-exchange").map((c) => c.status))
          .toEqual([200])

        // A second run finds nothing left to do.
        const again = yield* exchange.run({ appId: app.id })
        expect(again).toEqual([])
        expect(describeExchange(again)).toContain("nothing to exchange")

        // The connection keeps syncing, now as an OAuth 2.0 one: backfill requests with the bearer token.
        sim().control.clearCalls()
        const since = new Date()
        yield* Effect.flatMap(SyncQueue, (queue) => queue.syncWindow(connectionId))
        yield* waitForSync(user.id, token, connectionId, { since })
        const requested = sim().control.calls({ path: "/wellness-api/rest/backfill/dailies" })
        expect(requested.length).toBeGreaterThan(0)
        expect(requested.every((c) => c.status === 202 && c.params.auth?.startsWith("bearer:"))).toBe(true)
        yield* sim().control.deliverBackfills(yield* webhookUrl(app.id))
        const today = localToday(new Date(), null)
        const latest = yield* eventually(
          activity(user.id, token, addDays(today, -2), today),
          (found) => found.length > 0,
          "the days delivered after the move"
        )
        expect(latest.every((d) => d.connectionId === connectionId)).toBe(true)
        const after = yield* storedDays(connectionId)
        const dates = after.map((d) => d.date)
        expect(new Set(dates).size).toBe(dates.length)
      }))

    it.effect("a userPermissionsChange narrows the connection's scopes and the withdrawn data is no longer read", () =>
      Effect.gen(function*() {
        const { app, connectionId, providerUserId, token, user } = yield* connectedWithOAuth2("garmin-perm")
        const delivered = yield* sim().control.changePermissions(yield* webhookUrl(app.id), {
          userId: providerUserId,
          permissions: ["ACTIVITY_EXPORT", "WORKOUT_IMPORT"]
        })
        expect(delivered?.status).toBe(200)
        const scopes = listConnections(user.id, token).pipe(
          Effect.map((all) => all.find((c: any) => c.id === connectionId)?.scopes)
        )
        yield* eventually(scopes, (s) => s === "ACTIVITY_EXPORT WORKOUT_IMPORT", "the new permissions stored")

        sim().control.clearCalls()
        const since = new Date()
        yield* Effect.flatMap(SyncQueue, (queue) => queue.syncWindow(connectionId))
        const synced = yield* waitForSync(user.id, token, connectionId, { since })
        expect(sim().control.calls({ userId: providerUserId })).toEqual([])
        // why nothing was read is kept for the operator
        expect(synced.quarantinedRecords).toBeGreaterThan(0)
      }))

    it.effect("a revoked Garmin token (403) moves the connection to Reauthorize with the reason", () =>
      Effect.gen(function*() {
        const { connectionId, providerUserId, token, user } = yield* connectedWithOAuth2("garmin-revoked")
        sim().control.revokeUser(providerUserId)
        yield* Effect.flatMap(SyncQueue, (queue) => queue.syncWindow(connectionId))
        const row = yield* eventually(connectionRow(connectionId), (r) => r.status === "Reauthorize", "Reauthorize")
        expect(row.statusReason).toContain("revoked")
        expect((yield* listConnections(user.id, token)).find((c: any) => c.id === connectionId)).toBeUndefined()
        // one refused call: a lost grant is not retried
        expect(sim().control.calls({ userId: providerUserId, status: 403 })).toHaveLength(1)
      }))
  }
)
