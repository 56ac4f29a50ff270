/**
 * The portal's overview over HTTP: each count and list against connections seeded in every state the server
 * records (active, waiting to be reauthorized, a failed sync, rate limited, behind on sync, disconnected), a
 * quarantine, failing, paused and disabled webhook endpoints and a delivery backlog; the app filter (another
 * app's data never shows), paging by cursor, refused input and the session check.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { CreateUserPayload } from "@pulsebridge/domain"
import { addConnection, createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { Users } from "../../src/users/Users.js"
import { expectError, send } from "../fixtures/Http.js"
import { loggedIn, type PortalClient } from "./fixtures.js"

const tag = () => crypto.randomBytes(4).toString("hex")
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)
const hoursAhead = (hours: number) => new Date(Date.now() + hours * 3_600_000)

/** A new app with a failed sync and a failing endpoint with a pending delivery, and the means to seed more. */
const seedBase = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const users = yield* Users
  const { app } = yield* createApp()
  const user = (name: string) =>
    Effect.map(users.create(app.id, new CreateUserPayload({ externalUserId: `${name}-${tag()}` })), (c) => c.user)
  const state = (connectionId: string, values: {
    state: string
    lastSyncedAt?: Date | null
    lastError?: string | null
    rateLimitedUntil?: Date | null
    updatedAt?: Date
  }) =>
    sql`
        insert into sync_state (connection_id, state, last_synced_at, last_error, rate_limited_until, updated_at)
        values (${connectionId}, ${values.state}, ${values.lastSyncedAt ?? null}, ${values.lastError ?? null},
          ${values.rateLimitedUntil ?? null}, ${values.updatedAt ?? new Date()})
      `
  const endpoint = (values: {
    url: string
    enabled?: boolean
    disabledReason?: string | null
    failingSince?: Date | null
    pausedUntil?: Date | null
    failureStreak?: number
  }) =>
    Effect.gen(function*() {
      const id = crypto.randomUUID()
      yield* sql`
          insert into webhook_endpoints (id, app_id, url, enabled, disabled_reason, secret_sealed, failing_since,
            paused_until, failure_streak, created_at, updated_at)
          values (${id}, ${app.id}, ${values.url}, ${values.enabled ?? true}, ${values.disabledReason ?? null},
            'sealed', ${values.failingSince ?? null}, ${values.pausedUntil ?? null}, ${values.failureStreak ?? 0},
            ${hoursAgo(5)}, ${hoursAgo(1)})
        `
      return id
    })
  const delivery = (endpointId: string, values: {
    status: string
    createdAt: Date
    lastError?: string | null
    lastStatusCode?: number | null
  }) =>
    Effect.gen(function*() {
      const eventId = `evt_${crypto.randomUUID()}`
      yield* sql`
          insert into webhook_events (id, app_id, type, payload, created_at)
          values (${eventId}, ${app.id}, 'connection.updated', '{}'::jsonb, ${values.createdAt})
        `
      yield* sql`
          insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, last_status_code, last_error,
            last_attempt_at, next_attempt_at, created_at)
          values (${crypto.randomUUID()}, ${endpointId}, ${eventId}, ${values.status}, 1,
            ${values.lastStatusCode ?? null}, ${values.lastError ?? null}, ${values.createdAt}, ${hoursAhead(1)},
            ${values.createdAt})
        `
    })

  const failed = yield* user("failed")
  const failedConnection = yield* addConnection(failed, "Garmin")
  yield* state(failedConnection, { state: "Error", lastSyncedAt: hoursAgo(2), lastError: `boom ${app.id}` })
  const failingEndpoint = yield* endpoint({
    url: `https://example.com/failing/${app.id}`,
    failingSince: hoursAgo(3),
    failureStreak: 3
  })
  yield* delivery(failingEndpoint, {
    status: "Pending",
    createdAt: hoursAgo(2),
    lastError: "connection refused",
    lastStatusCode: 500
  })
  return {
    sql,
    app,
    user,
    state,
    endpoint,
    delivery,
    appId: app.id as string,
    failed,
    failedConnection,
    failingEndpoint
  }
})

/** Another app: its one failed sync and one failing endpoint. */
const seedOther = () =>
  Effect.map(seedBase, ({ appId, failed, failedConnection, failingEndpoint }) => ({
    appId,
    failed,
    failedConnection,
    failingEndpoint
  }))

/** An app with one connection in each state: the ids of what was seeded. */
const seedApp = () =>
  Effect.gen(function*() {
    const { app, delivery, endpoint, failed, failedConnection, failingEndpoint, sql, state, user } = yield* seedBase

    const healthy = yield* user("healthy")
    const healthyConnection = yield* addConnection(healthy, "Fitbit")
    yield* state(healthyConnection, { state: "Idle", lastSyncedAt: new Date() })
    const limited = yield* user("limited")
    const limitedConnection = yield* addConnection(limited, "WHOOP")
    const limitedUntil = new Date(Math.floor(hoursAhead(1).getTime() / 1000) * 1000)
    yield* state(limitedConnection, {
      state: "RateLimited",
      lastSyncedAt: hoursAgo(30),
      rateLimitedUntil: limitedUntil
    })
    const reauth = yield* user("reauth")
    const reauthConnection = yield* addConnection(reauth, "Dexcom", { status: "Reauthorize" })
    yield* sql`update connections set status_reason = 'Access was revoked' where id = ${reauthConnection}`
    const never = yield* user("never")
    const neverConnection = yield* addConnection(never, "Oura")
    yield* sql`update connections set created_at = ${hoursAgo(48)} where id = ${neverConnection}`
    const gone = yield* user("gone")
    const goneConnection = yield* addConnection(gone, "Withings", { status: "Disconnected" })
    yield* state(goneConnection, { state: "Error", lastSyncedAt: hoursAgo(100), lastError: "hidden" })
    const inactive = yield* user("inactive")
    const inactiveConnection = yield* addConnection(inactive, "Fitbit")
    yield* state(inactiveConnection, { state: "Stopped", lastSyncedAt: hoursAgo(200), lastError: "user inactive" })
    yield* sql`update users set status = 'Inactive' where id = ${inactive.id}`

    const quarantine = (connectionId: string, userId: string, key: string, seen: Date) =>
      sql`
        insert into quarantined_records (connection_id, user_id, provider, kind, record_key, provider_record_id,
          reason, raw_json, first_seen_at, last_seen_at)
        values (${connectionId}, ${userId}, 'Fitbit', 'dailyActivity', ${key}, ${key}, 'steps is not a number',
          '{}', ${seen}, ${seen})
      `
    const latestSeen = new Date(Math.floor(hoursAgo(1).getTime() / 1000) * 1000)
    yield* quarantine(healthyConnection, healthy.id, "rec-1", hoursAgo(4))
    yield* quarantine(healthyConnection, healthy.id, "rec-2", latestSeen)
    yield* quarantine(goneConnection, gone.id, "rec-hidden", new Date())

    const pausedEndpoint = yield* endpoint({
      url: `https://example.com/paused/${app.id}`,
      failingSince: hoursAgo(1),
      pausedUntil: hoursAhead(0.5),
      failureStreak: 6
    })
    const disabledEndpoint = yield* endpoint({
      url: `https://example.com/disabled/${app.id}`,
      enabled: false,
      disabledReason: "Failing for 5 days"
    })
    const healthyEndpoint = yield* endpoint({ url: `https://example.com/healthy/${app.id}` })
    const oldest = new Date(Math.floor(hoursAgo(6).getTime() / 1000) * 1000)
    yield* delivery(healthyEndpoint, { status: "Pending", createdAt: oldest })
    yield* delivery(healthyEndpoint, { status: "Pending", createdAt: hoursAgo(1) })
    yield* delivery(healthyEndpoint, { status: "Delivered", createdAt: hoursAgo(10) })

    return {
      appId: app.id as string,
      failedConnection,
      failingEndpoint,
      healthyConnection,
      limitedConnection,
      limitedUntil,
      reauthConnection,
      neverConnection,
      inactiveConnection,
      goneConnection,
      latestSeen,
      pausedEndpoint,
      disabledEndpoint,
      healthyEndpoint,
      oldest,
      users: { healthy, failed, limited, reauth, never }
    }
  })

const get = (client: PortalClient, path: string) =>
  Effect.gen(function*() {
    const reply = yield* client.get(path)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.headers["cache-control"]).toBe("no-store")
    return reply.body as any
  })

/** Every row of a list, page by page (`limit` a page), and how many pages it took. */
const allPages = (client: PortalClient, path: string, limit: number) =>
  Effect.gen(function*() {
    const rows: Array<any> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const sep = path.includes("?") ? "&" : "?"
      const page: any = yield* get(
        client,
        `${path}${sep}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      )
      expect(page.data.length).toBeLessThanOrEqual(limit)
      rows.push(...page.data)
      cursor = page.nextCursor
      pages++
    } while (cursor !== null && pages < 50)
    return { rows, pages }
  })

layer(makeTestServer({ webhookDelivery: false }), { excludeTestServices: true, timeout: "180 seconds" })(
  "portal overview",
  (it) => {
    it.effect("an app's counts: each state once, disconnected connections and inactive users left out", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const seeded = yield* seedApp()
        yield* seedOther()
        const counts = yield* get(client, `/portal/api/overview?app=${seeded.appId}`)
        expect(counts.app).toBe(seeded.appId)
        expect(counts.behindHours).toBe(24)
        expect(counts.connections).toEqual({ active: 5, reauthorize: 1, syncError: 1, rateLimited: 1, behind: 2 })
        expect(counts.quarantine).toEqual({ records: 2, latestAt: seeded.latestSeen.toISOString() })
        expect(counts.webhookEndpoints).toEqual({ failing: 2, paused: 1, disabled: 1 })
        expect(counts.deliveries.pending).toBe(3)
        expect(counts.deliveries.oldestPendingAt).toBe(seeded.oldest.toISOString())
        expect(counts.deliveries.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(6 * 3600)
        expect(counts.deliveries.oldestPendingAgeSeconds).toBeLessThan(6 * 3600 + 120)
        const whoop = counts.providers.find((p: any) => p.provider === "WHOOP")
        expect(whoop).toMatchObject({ active: 1, rateLimited: 1, rateLimitedUntil: seeded.limitedUntil.toISOString() })
        expect(whoop.budgets.length).toBeGreaterThan(0)
        expect(counts.providers.find((p: any) => p.provider === "Fitbit")).toMatchObject({ active: 2, rateLimited: 0 })
        expect(counts.providers.map((p: any) => p.provider)).toEqual(
          expect.arrayContaining(["Fitbit", "Garmin", "WHOOP", "Dexcom", "Oura", "Withings"])
        )

        // A longer threshold: the connection last synced 30 hours ago is no longer behind.
        const lenient = yield* get(client, `/portal/api/overview?app=${seeded.appId}&behindHours=36`)
        expect(lenient.connections.behind).toBe(1)
        expect(lenient.behindHours).toBe(36)
      }))

    it.effect("each list shows its rows with the app, the user and the last error; none of another app", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const seeded = yield* seedApp()
        const other = yield* seedOther()
        const list = (path: string) =>
          Effect.map(get(client, `${path}&app=${seeded.appId}`), (page) => {
            expect(page.nextCursor).toBeNull()
            for (const row of page.data) expect(row.appId).toBe(seeded.appId)
            return page.data as Array<any>
          })
        const connections = (kind: string) => list(`/portal/api/overview/connections?kind=${kind}`)

        const active = yield* connections("active")
        expect(active.map((r) => r.connectionId).sort()).toEqual(
          [
            seeded.healthyConnection,
            seeded.failedConnection,
            seeded.limitedConnection,
            seeded.neverConnection,
            seeded.inactiveConnection
          ].sort()
        )
        const reauth = yield* connections("reauthorize")
        expect(reauth).toHaveLength(1)
        expect(reauth[0]).toMatchObject({
          connectionId: seeded.reauthConnection,
          userId: seeded.users.reauth.id,
          externalUserId: seeded.users.reauth.externalUserId,
          provider: "Dexcom",
          status: "Reauthorize",
          statusReason: "Access was revoked"
        })
        const failed = yield* connections("sync-error")
        expect(failed.map((r) => r.connectionId)).toEqual([seeded.failedConnection])
        expect(failed[0]).toMatchObject({ syncState: "Error", syncError: `boom ${seeded.appId}`, provider: "Garmin" })
        const limited = yield* connections("rate-limited")
        expect(limited.map((r) => r.connectionId)).toEqual([seeded.limitedConnection])
        expect(limited[0].rateLimitedUntil).toBe(seeded.limitedUntil.toISOString())
        // The longest behind first: never synced in 48 hours, then last synced 30 hours ago.
        const behind = yield* connections("behind")
        expect(behind.map((r) => r.connectionId)).toEqual([seeded.neverConnection, seeded.limitedConnection])
        expect(behind[0]).toMatchObject({ syncState: "Pending", lastSyncedAt: null })

        const quarantined = yield* list("/portal/api/overview/quarantine?limit=50")
        expect(quarantined.map((r) => r.providerRecordId)).toEqual(["rec-2", "rec-1"])
        expect(quarantined[0]).toMatchObject({
          connectionId: seeded.healthyConnection,
          userId: seeded.users.healthy.id,
          kind: "dailyActivity",
          reason: "steps is not a number",
          lastSeenAt: seeded.latestSeen.toISOString()
        })

        const endpoints = (kind: string) => list(`/portal/api/overview/webhook-endpoints?kind=${kind}`)
        const failing = yield* endpoints("failing")
        // The longest failing first.
        expect(failing.map((r) => r.endpointId)).toEqual([seeded.failingEndpoint, seeded.pausedEndpoint])
        expect(failing[0]).toMatchObject({
          lastError: "connection refused",
          lastStatusCode: 500,
          failureStreak: 3,
          pending: 1,
          enabled: true
        })
        expect((yield* endpoints("paused")).map((r) => r.endpointId)).toEqual([seeded.pausedEndpoint])
        const disabled = yield* endpoints("disabled")
        expect(disabled.map((r) => r.endpointId)).toEqual([seeded.disabledEndpoint])
        expect(disabled[0]).toMatchObject({ enabled: false, disabledReason: "Failing for 5 days" })
        const backlog = yield* endpoints("backlog")
        expect(backlog.map((r) => r.endpointId)).toEqual([seeded.healthyEndpoint, seeded.failingEndpoint])
        expect(backlog[0]).toMatchObject({ pending: 2, oldestPendingAt: seeded.oldest.toISOString() })

        // The other app's own rows are in its lists, and in none of this app's.
        const theirs = yield* get(client, `/portal/api/overview/connections?kind=sync-error&app=${other.appId}`)
        expect(theirs.data.map((r: any) => r.connectionId)).toEqual([other.failedConnection])
        const theirCounts = yield* get(client, `/portal/api/overview?app=${other.appId}`)
        expect(theirCounts.connections).toEqual({ active: 1, reauthorize: 0, syncError: 1, rateLimited: 0, behind: 0 })
        expect(theirCounts.webhookEndpoints).toEqual({ failing: 1, paused: 0, disabled: 0 })
        expect(theirCounts.quarantine).toEqual({ records: 0, latestAt: null })
        expect(theirCounts.deliveries.pending).toBe(1)
      }))

    it.effect("across all apps: each count is the sum of the apps' counts, and the lists hold every app's rows", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const first = yield* seedApp()
        const second = yield* seedOther()
        const apps = (yield* get(client, "/portal/api/apps")).data as Array<{ id: string }>
        const all = yield* get(client, "/portal/api/overview")
        expect(all.app).toBeNull()
        const perApp: Array<any> = []
        for (const app of apps) perApp.push(yield* get(client, `/portal/api/overview?app=${app.id}`))
        const total = (pick: (c: any) => number) => perApp.reduce((sum, c) => sum + pick(c), 0)
        for (const key of ["active", "reauthorize", "syncError", "rateLimited", "behind"]) {
          expect(all.connections[key], key).toBe(total((c) => c.connections[key]))
        }
        for (const key of ["failing", "paused", "disabled"]) {
          expect(all.webhookEndpoints[key], key).toBe(total((c) => c.webhookEndpoints[key]))
        }
        expect(all.quarantine.records).toBe(total((c) => c.quarantine.records))
        expect(all.deliveries.pending).toBe(total((c) => c.deliveries.pending))
        expect(all.connections.syncError).toBeGreaterThanOrEqual(2)

        const failed = yield* allPages(client, "/portal/api/overview/connections?kind=sync-error", 1)
        expect(failed.rows).toHaveLength(all.connections.syncError)
        expect(failed.pages).toBe(all.connections.syncError)
        const ids = failed.rows.map((r) => r.connectionId)
        expect(ids).toEqual(expect.arrayContaining([first.failedConnection, second.failedConnection]))
        expect(new Set(ids).size).toBe(ids.length)
      }))

    it.effect("paging: every row once, in order, for each list; a cursor of another list is a 400", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const seeded = yield* seedApp()
        const active = yield* allPages(client, `/portal/api/overview/connections?kind=active&app=${seeded.appId}`, 2)
        expect(active.pages).toBe(3)
        expect(active.rows).toHaveLength(5)
        expect(new Set(active.rows.map((r) => r.connectionId)).size).toBe(5)
        const times = active.rows.map((r) => Date.parse(r.since))
        expect(times).toEqual([...times].sort((a, b) => b - a))

        const quarantined = yield* allPages(client, `/portal/api/overview/quarantine?app=${seeded.appId}`, 1)
        expect(quarantined.pages).toBe(2)
        expect(quarantined.rows.map((r) => r.providerRecordId)).toEqual(["rec-2", "rec-1"])

        const failing = yield* allPages(
          client,
          `/portal/api/overview/webhook-endpoints?kind=failing&app=${seeded.appId}`,
          1
        )
        expect(failing.rows.map((r) => r.endpointId)).toEqual([seeded.failingEndpoint, seeded.pausedEndpoint])

        const first = yield* get(client, `/portal/api/overview/connections?kind=active&app=${seeded.appId}&limit=1`)
        expect(first.nextCursor).toEqual(expect.any(String))
        expectError(
          yield* client.get(
            `/portal/api/overview/connections?kind=behind&app=${seeded.appId}&cursor=${
              encodeURIComponent(first.nextCursor)
            }`
          ),
          400,
          "BadRequest"
        )
        expectError(
          yield* client.get(`/portal/api/overview/quarantine?cursor=${encodeURIComponent(first.nextCursor)}`),
          400,
          "BadRequest"
        )
        expectError(yield* client.get("/portal/api/overview/quarantine?cursor=not-a-cursor"), 400, "BadRequest")
      }))

    it.effect("bad input is a 400, an unknown app a 404, and no session a 401", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const seeded = yield* seedOther()
        expectError(yield* client.get("/portal/api/overview?app=not-a-uuid"), 400)
        expectError(yield* client.get(`/portal/api/overview?behindHours=0`), 400)
        expectError(yield* client.get(`/portal/api/overview?behindHours=721`), 400)
        expectError(yield* client.get("/portal/api/overview/connections?kind=everything"), 400)
        expectError(yield* client.get("/portal/api/overview/connections"), 400)
        expectError(yield* client.get("/portal/api/overview/webhook-endpoints?kind=failing&limit=0"), 400)
        expectError(yield* client.get("/portal/api/overview/quarantine?limit=201"), 400)
        expectError(yield* client.get(`/portal/api/overview?app=${crypto.randomUUID()}`), 404, "NotFound")
        expectError(
          yield* client.get(`/portal/api/overview/connections?kind=active&app=${crypto.randomUUID()}`),
          404,
          "NotFound"
        )
        for (
          const path of [
            `/portal/api/overview?app=${seeded.appId}`,
            "/portal/api/overview/connections?kind=sync-error",
            "/portal/api/overview/quarantine",
            "/portal/api/overview/webhook-endpoints?kind=failing"
          ]
        ) {
          const refused = yield* send("GET", path)
          const body = expectError(refused, 401, "Unauthorized")
          expect(JSON.stringify(body)).not.toContain(seeded.failedConnection)
          expect(refused.headers["cache-control"]).toBe("no-store")
        }
      }))
  }
)
