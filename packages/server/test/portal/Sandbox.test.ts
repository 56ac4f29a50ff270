/**
 * The portal's sandbox page over HTTP, in sandbox mode: a test user connected to simulated
 * providers in one call each (real connections whose backfill fills the user page's charts), or to
 * every simulator at once, the app's list of test users with their connections' live state, a
 * re-sync, the simulators' fault knobs as the simulators themselves report them, and the audit log.
 */
import { expect, layer } from "@effect/vitest"
import { CreateUserPayload } from "@pulsebridge/domain"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { addDays } from "../../src/platform/Calendar.js"
import { Users } from "../../src/users/Users.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { entriesPath } from "../journal/fixtures/Journal.js"
import { auditOf, loggedIn } from "./fixtures.js"

const settled = (connection: any) => connection.syncState === "Idle" && connection.lastSyncedAt !== null

layer(makeTestServer({ sandbox: true }), { excludeTestServices: true, timeout: "300 seconds" })(
  "portal sandbox",
  (it) => {
    it.effect("Oura and Withings connect in a click each, and their backfills fill the user page", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { app } = yield* createApp()
        const made = yield* client.post("/portal/api/sandbox/test-users", { json: { appId: app.id } })
        expect(made.status, made.text).toBe(201)
        const userId = made.body.user.id as string
        for (const provider of ["Oura", "Withings"]) {
          const reply = yield* client.post(`/portal/api/sandbox/users/${userId}/connections`, { json: { provider } })
          expect(reply.status, reply.text).toBe(201)
          expect(reply.body).toMatchObject({ userId, provider, status: "Active" })
        }
        yield* eventually(
          client.get(`/portal/api/users/${userId}`),
          (reply) => reply.body.connections.length === 2 && reply.body.connections.every(settled),
          "the two backfills",
          { every: "500 millis", within: "120 seconds" }
        )
        const overview = yield* client.get(`/portal/api/users/${userId}/overview?days=14`)
        expect(overview.status, overview.text.slice(0, 300)).toBe(200)
        const providersOf = (rows: Array<any>) => [...new Set(rows.map((row) => row.provider))].sort()
        expect(providersOf(overview.body.dailyActivity)).toEqual(["Oura", "Withings"])
        expect(overview.body.dailyActivity.some((d: any) => d.steps > 0)).toBe(true)
      }))

    it.effect("a test user connected to Dexcom, Fitbit and WHOOP in one call each gets data the user page charts", () =>
      Effect.gen(function*() {
        const { client, email } = yield* loggedIn
        const { app } = yield* createApp()
        const made = yield* client.post("/portal/api/sandbox/test-users", { json: { appId: app.id } })
        expect(made.status, made.text).toBe(201)
        expect(made.body.user.externalUserId).toMatch(/^sandbox-[0-9a-f]{8}$/)
        expect(made.body).toMatchObject({ user: { appId: app.id, status: "Active" }, connections: [] })
        const userId = made.body.user.id as string

        const connected: Record<string, string> = {}
        for (const provider of ["Dexcom", "Fitbit", "WHOOP"]) {
          const reply = yield* client.post(`/portal/api/sandbox/users/${userId}/connections`, { json: { provider } })
          expect(reply.status, reply.text).toBe(201)
          expect(reply.body).toMatchObject({ userId, provider, status: "Active" })
          connected[provider] = reply.body.id
        }
        const page = yield* eventually(
          client.get(`/portal/api/users/${userId}`),
          (reply) => reply.body.connections.length === 3 && reply.body.connections.every(settled),
          "the three backfills",
          { every: "500 millis", within: "240 seconds" }
        )
        expect(page.body.connections.map((c: any) => c.id).sort()).toEqual(Object.values(connected).sort())

        // A meal logged today through the public API, as the user's app would.
        const { token } = yield* Effect.flatMap(
          Users,
          (users) => users.create(app.id, new CreateUserPayload({ externalUserId: made.body.user.externalUserId }))
        )
        const meal = yield* send("POST", entriesPath(userId), {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: new Date().toISOString(), title: "Porridge" }
        })
        expect(meal.status, preview(meal)).toBe(201)

        const overview = yield* client.get(`/portal/api/users/${userId}/overview?days=14`)
        expect(overview.status, overview.text.slice(0, 300)).toBe(200)
        const o = overview.body
        expect(o.timezone).toBe("UTC")
        expect(o.to).toBe(new Date().toISOString().slice(0, 10))
        expect(Date.parse(o.to) - Date.parse(o.from)).toBe(13 * 86_400_000)
        expect(o.dailyActivity.length).toBeGreaterThan(0)
        expect(o.dailyActivity.some((d: any) => d.provider === "Fitbit" && d.steps > 0)).toBe(true)
        expect(o.dailyLoad.length).toBeGreaterThan(0)
        expect(o.dailyLoad.every((d: any) => d.provider === "WHOOP" && d.date >= o.from && d.date <= o.to)).toBe(true)
        expect(o.glucoseBucketMinutes).toBe(5)
        // A 5-minute CGM fills most of two weeks' 5-minute buckets, one reading each.
        expect(o.glucose.length).toBeGreaterThan(12 * 288)
        expect(o.glucose.every((p: any) => p.provider === "Dexcom" && p.readings === 1)).toBe(true)
        expect(o.meals.map((m: any) => m.id)).toEqual([json(meal).id])
        // Every past day of the range has a score; today has one once the simulated devices have
        // recorded something today (early in the UTC day they may not have yet).
        const scored = (o.scores as Array<any>).map((s) => s.date)
        const pastDays = Array.from({ length: 13 }, (_, i) => addDays(o.from, i))
        expect(scored.filter((date) => date !== o.to).sort()).toEqual(pastDays)
        expect(o.scores.some((s: any) => s.overallScore !== null)).toBe(true)

        const longer = yield* client.get(`/portal/api/users/${userId}/overview?days=60`)
        expect(longer.status).toBe(200)
        expect(longer.body.glucoseBucketMinutes).toBe(15)
        const points = longer.body.glucose as Array<any>
        expect(points.length).toBeGreaterThan(0)
        expect(points.length).toBeLessThanOrEqual(60 * 96)
        expect(points.every((p: any) => Date.parse(p.time) % (15 * 60_000) === 0)).toBe(true)
        expect(points.some((p: any) => p.readings === 3)).toBe(true)
        expectError(yield* client.get(`/portal/api/users/${userId}/overview?days=367`), 400)

        const listed = yield* client.get(`/portal/api/apps/${app.id}/users`)
        expect(listed.body.data).toHaveLength(1)
        expect(listed.body.data[0].connections.map((c: any) => c.provider)).toEqual(["Dexcom", "Fitbit", "WHOOP"])
        expect(listed.body.data[0].connections.every((c: any) => c.status === "Active" && c.syncState === "Idle"))
          .toBe(true)

        const resync = yield* client.post(`/portal/api/users/${userId}/connections/${connected["Dexcom"]}/sync`)
        expect(resync.status, resync.text).toBe(202)
        expect(resync.body).toMatchObject({ connectionId: connected["Dexcom"], kind: "Recent" })

        expect(yield* auditOf(client, "sandbox.testUser", userId)).toHaveLength(1)
        for (const [provider, id] of Object.entries(connected)) {
          const events = yield* auditOf(client, "sandbox.connect", id)
          expect(events).toHaveLength(1)
          expect(events[0]).toMatchObject({ operatorEmail: email, appId: app.id, detail: { userId, provider } })
        }
        expect(yield* auditOf(client, "connection.resync", connected["Dexcom"]!)).toHaveLength(1)
      }))

    it.effect(
      "connect all connects a test user to every simulator; each backfill ends Idle, and a second call connects none",
      () =>
        Effect.gen(function*() {
          const { client, email } = yield* loggedIn
          const { app } = yield* createApp()
          const made = yield* client.post("/portal/api/sandbox/test-users", { json: { appId: app.id } })
          expect(made.status, made.text).toBe(201)
          const userId = made.body.user.id as string
          const base = `/portal/api/sandbox/apps/${app.id}/test-users/${userId}`
          const simulators = (yield* client.get("/portal/api/sandbox/faults")).body.data.map((s: any) => s.provider)
          expect(simulators.length).toBeGreaterThanOrEqual(4)

          const all = yield* client.post(`${base}/connect-all`)
          expect(all.status, all.text).toBe(200)
          expect(all.body.failed).toEqual([])
          expect([...all.body.connected].sort()).toEqual([...simulators].sort())
          expect(all.body.user).toMatchObject({ id: userId, appId: app.id, status: "Active" })
          expect(all.body.user.connections.map((c: any) => c.provider).sort()).toEqual([...simulators].sort())
          for (const connection of all.body.user.connections) {
            const events = yield* auditOf(client, "sandbox.connect", connection.id)
            expect(events, connection.provider).toHaveLength(1)
            expect(events[0]).toMatchObject({ operatorEmail: email, appId: app.id, detail: { userId } })
          }

          // Every backfill ends: the state the page polls leaves Backfilling for Idle, with a last sync.
          const settledUser = yield* eventually(
            client.get(base),
            (reply) => reply.status === 200 && reply.body.connections.every(settled),
            "every backfill of connect all",
            { every: "1 second", within: "280 seconds" }
          )
          expect(settledUser.body.connections).toHaveLength(simulators.length)
          expect(settledUser.body.connections.every((c: any) => c.syncProgress === null)).toBe(true)

          const again = yield* client.post(`${base}/connect-all`)
          expect(again.status, again.text).toBe(200)
          expect(again.body).toMatchObject({ connected: [], failed: [] })
          expect(again.body.user.connections.map((c: any) => c.id).sort()).toEqual(
            all.body.user.connections.map((c: any) => c.id).sort()
          )
        }),
      { timeout: 300_000 }
    )

    it.effect("an app's test users: only those the sandbox page made, newest first, paged, each with its connections", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { app } = yield* createApp()
        const other = yield* createApp()
        const make = (appId: string, externalUserId?: string) =>
          Effect.map(
            client.post("/portal/api/sandbox/test-users", {
              json: externalUserId === undefined ? { appId } : { appId, externalUserId }
            }),
            (reply) => {
              expect(reply.status, reply.text).toBe(201)
              return reply.body.user.id as string
            }
          )
        const first = yield* make(app.id)
        const second = yield* make(app.id, "tester-two")
        const otherApps = yield* make(other.app.id)
        // A user the app made itself, named as the page names its own: not a test user.
        const appsOwn = yield* Effect.flatMap(
          Users,
          (users) => users.create(app.id, new CreateUserPayload({ externalUserId: "sandbox-0000ffff" }))
        )
        const connected = yield* client.post(`/portal/api/sandbox/users/${second}/connections`, {
          json: { provider: "Dexcom" }
        })
        expect(connected.status, connected.text).toBe(201)

        const list = `/portal/api/sandbox/apps/${app.id}/test-users`
        const page = yield* client.get(list)
        expect(page.status, page.text).toBe(200)
        expect(page.body.data.map((u: any) => u.id)).toEqual([second, first])
        expect(page.body.nextCursor).toBeNull()
        expect(page.body.data[0]).toMatchObject({ appId: app.id, externalUserId: "tester-two", status: "Active" })
        expect(page.body.data[0].connections).toHaveLength(1)
        expect(page.body.data[0].connections[0]).toMatchObject({ id: connected.body.id, provider: "Dexcom" })
        expect(page.body.data[0].connections[0].syncState).toMatch(/^(Pending|Backfilling|Idle)$/)
        expect(page.body.data[1].connections).toEqual([])

        const one = yield* client.get(`${list}?limit=1`)
        expect(one.body.data.map((u: any) => u.id)).toEqual([second])
        expect(typeof one.body.nextCursor).toBe("string")
        const next = yield* client.get(`${list}?limit=1&cursor=${one.body.nextCursor}`)
        expect(next.body.data.map((u: any) => u.id)).toEqual([first])
        expect(next.body.nextCursor).toBeNull()

        const single = yield* client.get(`${list}/${second}`)
        expect(single.status, single.text).toBe(200)
        expect(single.body).toMatchObject({ id: second, appId: app.id, externalUserId: "tester-two" })
        expect(single.body.connections.map((c: any) => c.id)).toEqual([connected.body.id])

        // Another app's test user, the app's own user and no user at all are 404s under this app.
        for (const userId of [otherApps, appsOwn.user.id, crypto.randomUUID()]) {
          expectError(yield* client.get(`${list}/${userId}`), 404, "NotFound")
          expectError(yield* client.post(`${list}/${userId}/connect-all`), 404, "NotFound")
        }
        expect(
          (yield* client.get(`/portal/api/sandbox/apps/${other.app.id}/test-users`)).body.data.map((u: any) => u.id)
        ).toEqual([otherApps])
        expectError(yield* client.get(`/portal/api/sandbox/apps/${crypto.randomUUID()}/test-users`), 404, "NotFound")
        for (const bad of ["?limit=0", "?limit=201", "?limit=x", "?cursor=nope"]) {
          expectError(yield* client.get(`${list}${bad}`), 400)
        }
        expectError(yield* client.get("/portal/api/sandbox/apps/not-a-uuid/test-users"), 400)
        expectError(yield* client.get(`${list}/not-a-uuid`), 400)

        // An Inactive test user stays listed, with its status, and cannot connect.
        yield* Effect.flatMap(Users, (users) => users.softDelete(app.id, first))
        const listed = yield* client.get(list)
        expect(listed.body.data.find((u: any) => u.id === first).status).toBe("Inactive")
        expectError(yield* client.post(`${list}/${first}/connect-all`), 400, "BadRequest")
      }))

    it.effect("fault knobs are set through the simulator's own control routes, validated, and cleared", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const spec = { path: "/v3/users/self/egvs*", kind: "serverError", count: 2 }
        const set = yield* client.put("/portal/api/sandbox/faults/Dexcom", { json: { faults: [spec] } })
        expect(set.status, set.text).toBe(200)
        expect(set.body).toEqual({ provider: "Dexcom", faults: [{ ...spec, remaining: 2 }] })
        const simulator = yield* send("GET", "/sandbox/dexcom/_sim/faults")
        expect(json(simulator)).toEqual({ faults: [{ ...spec, remaining: 2 }] })

        const all = yield* client.get("/portal/api/sandbox/faults")
        expect(all.status).toBe(200)
        expect(all.body.data.map((s: any) => s.provider).sort()).toEqual([
          "Dexcom",
          "Fitbit",
          "Garmin",
          "Oura",
          "WHOOP",
          "Withings"
        ])
        expect(all.body.data.find((s: any) => s.provider === "Dexcom").faults).toEqual([{ ...spec, remaining: 2 }])

        for (
          const bad of [
            { faults: [{ path: "/x", kind: "explode" }] },
            { faults: [{ path: "/x", kind: "slow", delayMs: -1 }] },
            { faults: [{ path: "", kind: "gone" }] },
            { faults: [{ kind: "gone" }] },
            { faults: "all" }
          ]
        ) {
          expectError(yield* client.put("/portal/api/sandbox/faults/Dexcom", { json: bad }), 400)
        }
        expectError(yield* client.put("/portal/api/sandbox/faults/Nokia", { json: { faults: [] } }), 404, "NotFound")
        expect(json(yield* send("GET", "/sandbox/dexcom/_sim/faults"))).toEqual({ faults: [{ ...spec, remaining: 2 }] })

        const cleared = yield* client.put("/portal/api/sandbox/faults/Dexcom", { json: { faults: [] } })
        expect(cleared.body).toEqual({ provider: "Dexcom", faults: [] })
        expect(json(yield* send("GET", "/sandbox/dexcom/_sim/faults"))).toEqual({ faults: [] })
        const events = yield* auditOf(client, "sandbox.faults.set", "Dexcom")
        expect(events.map((e) => e.detail)).toEqual([{ faults: [] }, { faults: [spec] }])
      }))

    it.effect("connecting an unknown user is a 404, an Inactive one a 400; a test user of an unknown app a 404", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { app } = yield* createApp()
        expectError(
          yield* client.post(`/portal/api/sandbox/users/${crypto.randomUUID()}/connections`, {
            json: { provider: "Dexcom" }
          }),
          404,
          "NotFound"
        )
        expectError(
          yield* client.post("/portal/api/sandbox/test-users", { json: { appId: crypto.randomUUID() } }),
          404,
          "NotFound"
        )
        const made = yield* client.post("/portal/api/sandbox/test-users", {
          json: { appId: app.id, externalUserId: "named-one" }
        })
        expect(made.status, made.text).toBe(201)
        expect(made.body.user.externalUserId).toBe("named-one")
        yield* Effect.flatMap(Users, (users) => users.softDelete(app.id, made.body.user.id))
        const refused = yield* client.post(`/portal/api/sandbox/users/${made.body.user.id}/connections`, {
          json: { provider: "Dexcom" }
        })
        expectError(refused, 400, "BadRequest")
        expectError(
          yield* client.post(`/portal/api/sandbox/users/${made.body.user.id}/connections`, {
            json: { provider: "Dexcom", account: "" }
          }),
          400
        )
      }))
  }
)
