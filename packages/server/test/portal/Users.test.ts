/**
 * The portal's users pages over HTTP, as a logged-in operator: the paged and searched list, a
 * user's page and journal with its photos, the export, the erasure with its confirmation, and the
 * sandbox routes answering 404 outside sandbox mode. Changes are checked in the audit log.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { CreateUserPayload } from "@pulsebridge/domain"
import { addConnection, createApp, makeTestServer, portalRequest, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { Users } from "../../src/users/Users.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { makePng } from "../journal/fixtures/Images.js"
import { entriesPath, scan, scanForm } from "../journal/fixtures/Journal.js"
import { auditOf, auditOfOperator, loggedIn } from "./fixtures.js"

const tag = () => crypto.randomBytes(4).toString("hex")

/** A new app with users of these external ids, created in this order. */
const appWithUsers = (externalUserIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { apiKey, app } = yield* createApp()
    const users = yield* Users
    const created = []
    for (const externalUserId of externalUserIds) {
      created.push(yield* users.create(app.id, new CreateUserPayload({ externalUserId })))
    }
    return { appId: app.id as string, apiKey, users: created }
  })

layer(makeTestServer(), { excludeTestServices: true, timeout: "180 seconds" })("portal users", (it) => {
  it.effect("the list pages an app's users newest first, each once; Inactive ones with their status, erased ones never", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const ids = Array.from({ length: 7 }, (_, i) => `user-${i}-${tag()}`)
      const { apiKey, appId, users } = yield* appWithUsers(ids)
      yield* appWithUsers([`elsewhere-${tag()}`])
      const byExternal = new Map(users.map((u) => [u.user.externalUserId, u.user.id as string]))
      yield* Effect.flatMap(Users, (s) => s.softDelete(users[1]!.user.appId, users[1]!.user.id))
      const erased = yield* send("POST", `/api/v1/users/${users[2]!.user.id}/erase`, { bearer: apiKey })
      expect(erased.status, preview(erased)).toBe(202)

      const seen: Array<any> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
        const reply = yield* client.get(`/portal/api/apps/${appId}/users?limit=3${query}`)
        expect(reply.status, reply.text).toBe(200)
        expect(reply.body.data.length).toBeLessThanOrEqual(3)
        seen.push(...reply.body.data)
        cursor = reply.body.nextCursor
        pages++
      } while (cursor !== null && pages < 10)
      expect(pages).toBe(2)
      const expected = ids.filter((id) => id !== ids[2])
      expect(seen.map((u) => u.externalUserId).sort()).toEqual([...expected].sort())
      expect(seen.map((u) => u.id)).toEqual(seen.map((u) => byExternal.get(u.externalUserId)))
      const times = seen.map((u) => Date.parse(u.createdAt))
      expect(times).toEqual([...times].sort((a, b) => b - a))
      expect(seen.find((u) => u.externalUserId === ids[1])).toMatchObject({ status: "Inactive", connections: [] })
      expect(seen.find((u) => u.externalUserId === ids[0])).toMatchObject({ status: "Active" })
    }))

  it.effect("search is a case-insensitive prefix of the external id in which % and _ match only themselves", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { appId } = yield* appWithUsers(["Ab%1", "abX1", "ab_2", "abc2", "ZAB"])
      const search = (text: string) =>
        Effect.map(
          client.get(`/portal/api/apps/${appId}/users?search=${encodeURIComponent(text)}`),
          (reply) => {
            expect(reply.status, reply.text).toBe(200)
            return (reply.body.data as Array<any>).map((u) => u.externalUserId).sort()
          }
        )
      expect(yield* search("aB%")).toEqual(["Ab%1"])
      expect(yield* search("AB_")).toEqual(["ab_2"])
      expect(yield* search("ab")).toEqual(["Ab%1", "abX1", "ab_2", "abc2"])
      expect(yield* search("b")).toEqual([])
      expect(yield* search("\\")).toEqual([])
    }))

  it.effect("an unknown app is a 404, a cursor the list did not give a 400, and no session a 401", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { appId } = yield* appWithUsers(["only"])
      expectError(yield* client.get(`/portal/api/apps/${crypto.randomUUID()}/users`), 404, "NotFound")
      for (const cursor of ["nonsense", Buffer.from("2026-01-01T00:00:00Z|x").toString("base64url")]) {
        expectError(yield* client.get(`/portal/api/apps/${appId}/users?cursor=${cursor}`), 400, "BadRequest")
      }
      expectError(yield* client.get(`/portal/api/apps/${appId}/users?limit=0`), 400)
      const { baseUrl } = yield* TestServer
      expect((yield* portalRequest(baseUrl, "GET", `/portal/api/apps/${appId}/users`)).status).toBe(401)
    }))

  it.effect("a user's page shows the user as the API does; an unknown user is a 404", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { apiKey, users } = yield* appWithUsers([`page-${tag()}`])
      const userId = users[0]!.user.id
      const reply = yield* client.get(`/portal/api/users/${userId}`)
      expect(reply.status, reply.text).toBe(200)
      const viaApi = yield* send("GET", `/api/v1/users/${userId}`, { bearer: apiKey })
      expect(reply.body).toEqual({ user: json(viaApi), connections: [] })
      expectError(yield* client.get(`/portal/api/users/${crypto.randomUUID()}`), 404, "NotFound")
      expectError(yield* client.get(`/portal/api/users/${crypto.randomUUID()}/overview`), 404, "NotFound")
      const resync = yield* client.post(`/portal/api/users/${userId}/connections/${crypto.randomUUID()}/sync`)
      expectError(resync, 404, "NotFound")
    }))

  it.effect("the journal lists entries with their photo URL, and the photo streams with its stored type", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { users } = yield* appWithUsers([`journal-${tag()}`])
      const { token, user } = users[0]!
      const manual = yield* send("POST", entriesPath(user.id), {
        bearer: token,
        json: {
          entryKind: "Meal",
          consumedAtUtc: "2026-01-05T12:30:00Z",
          title: "Lunch",
          nutrients: { caloriesKcal: 640 }
        }
      })
      expect(manual.status, preview(manual)).toBe(201)
      const png = makePng(32, 24, 5)
      const photo = yield* scan(
        token,
        user.id,
        scanForm({ bytes: png, type: "image/png", name: "dinner.png" }, {
          entryKind: "Meal",
          consumedAtUtc: "2026-01-06T19:00:00Z",
          timezone: "UTC"
        })
      )

      const reply = yield* client.get(`/portal/api/users/${user.id}/journal?from=2026-01-01&to=2026-01-31`)
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.data).toHaveLength(2)
      expect(reply.body.data[0]).toMatchObject({
        id: json(manual).id,
        kind: "Meal",
        title: "Lunch",
        localDate: "2026-01-05",
        energyKcal: 640,
        imageUrl: null
      })
      const imageUrl = `/portal/api/users/${user.id}/journal/${photo.id}/photo`
      expect(reply.body.data[1]).toMatchObject({ id: photo.id, localDate: "2026-01-06", imageUrl })

      const image = yield* client.get(imageUrl)
      expect(image.status).toBe(200)
      expect(image.headers["content-type"]).toBe("image/png")
      expect(Buffer.from(image.text, "latin1").length).toBeGreaterThan(0)
      expectError(yield* client.get(`/portal/api/users/${user.id}/journal/${json(manual).id}/photo`), 404)
      expectError(yield* client.get(`/portal/api/users/${user.id}/journal?from=2026-02-01&to=2026-01-01`), 400)
      expectError(yield* client.get(`/portal/api/users/${user.id}/journal?from=2024-01-01&to=2026-01-01`), 400)
      expectError(yield* client.get(`/portal/api/users/${user.id}/journal?from=2026-02-30`), 400)
    }))

  it.effect("the export streams NDJSON as an attachment, and is audited", () =>
    Effect.gen(function*() {
      const { client, email } = yield* loggedIn
      const { users } = yield* appWithUsers([`export-${tag()}`])
      const userId = users[0]!.user.id
      const reply = yield* client.get(`/portal/api/users/${userId}/export`)
      expect(reply.status).toBe(200)
      expect(reply.headers["content-type"]).toMatch(/^application\/x-ndjson/)
      expect(reply.headers["content-disposition"]).toBe(`attachment; filename="user-${userId}.ndjson"`)
      const lines = reply.text.trim().split("\n").map((line) => JSON.parse(line))
      expect(lines[0]).toMatchObject({ type: "user", data: { id: userId } })
      const events = yield* auditOf(client, "user.export", userId)
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({ operatorEmail: email, targetType: "user", appId: users[0]!.user.appId })
    }))

  it.effect("erasure needs the user's external id typed; then the user is gone from the portal and the API", () =>
    Effect.gen(function*() {
      const { client, email } = yield* loggedIn
      const externalUserId = `erase-${tag()}`
      const { apiKey, appId, users } = yield* appWithUsers([externalUserId])
      const { token, user } = users[0]!
      const path = `/portal/api/users/${user.id}/erase`
      expectError(
        yield* client.post(path, { json: { confirmExternalUserId: `${externalUserId}x` } }),
        400,
        "BadRequest"
      )
      expectError(yield* client.post(path, { json: { confirmExternalUserId: externalUserId.toUpperCase() } }), 400)
      expectError(yield* client.post(path, { json: {} }), 400)
      expect((yield* client.get(`/portal/api/users/${user.id}`)).status).toBe(200)
      expect(yield* auditOf(client, "user.erase", user.id)).toEqual([])

      const erased = yield* client.post(path, { json: { confirmExternalUserId: externalUserId } })
      expect(erased.status, erased.text).toBe(202)
      expect(erased.body).toMatchObject({ id: user.id, status: "Erasing" })
      expectError(yield* client.get(`/portal/api/users/${user.id}`), 404, "NotFound")
      expectError(yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey }), 404, "NotFound")
      expect((yield* send("GET", entriesPath(user.id) + "?date=2026-01-01", { bearer: token })).status).toBe(401)
      const listed = yield* client.get(`/portal/api/apps/${appId}/users`)
      expect(listed.body.data).toEqual([])
      expectError(yield* client.post(path, { json: { confirmExternalUserId: externalUserId } }), 404)
      // The event names the user by its id until the erasure ends, then by nothing (ErasureTraces.test.ts); it
      // never holds the external id.
      const events = yield* auditOfOperator(client, "user.erase", email)
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({ operatorEmail: email, appId, targetType: "user" })
      expect([user.id, null]).toContain(events[0].targetId)
      expect(JSON.stringify(events[0])).not.toContain(externalUserId)
    }))

  it.effect("a year of 5-minute glucose (105,408 readings) is answered as 8,784 hourly means", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { users } = yield* appWithUsers([`year-${tag()}`])
      const { user } = users[0]!
      const connectionId = yield* addConnection(user, "Dexcom")
      // Generated by the database: a year of readings through the sync's store would cost far more than the read.
      const sql = yield* SqlClient.SqlClient
      const today = new Date().toISOString().slice(0, 10)
      const start = new Date(Date.parse(`${today}T00:00:00Z`) - 365 * 86_400_000)
      yield* sql`
        insert into glucose_readings (connection_id, user_id, provider, provider_record_id, date, system_time,
          display_time, value, unit, rate_unit, raw_json)
        select ${connectionId}, ${user.id}, 'Dexcom', 'r' || i, (t at time zone 'UTC')::date, t, t, 90 + (i % 12) * 5,
          'mg/dL', 'mg/dL/min', '{}'
        from (select i, ${start}::timestamptz + i * interval '5 minutes' as t from generate_series(0, 105407) i) s
      `
      const reply = yield* client.get(`/portal/api/users/${user.id}/overview?days=366`)
      expect(reply.status, reply.text.slice(0, 300)).toBe(200)
      expect(reply.body.glucoseBucketMinutes).toBe(60)
      const points = reply.body.glucose as Array<any>
      expect(points).toHaveLength(366 * 24)
      expect(points.every((p) => p.readings === 12 && p.value === 117.5 && p.connectionId === connectionId)).toBe(true)
      expect(points[0].time).toBe(start.toISOString())
      // Far below the readings themselves as JSON (about 300 bytes each).
      expect(reply.text.length).toBeLessThan(2_000_000)
    }))

  it.effect("the overview covers `days` ending today or `from` to `to`; a range it cannot answer is a 400 saying why", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { users } = yield* appWithUsers([`range-${tag()}`])
      const path = `/portal/api/users/${users[0]!.user.id}/overview`
      const dayMs = 86_400_000
      for (const [query, days] of [["", 14], ["?days=7", 7], ["?days=90", 90]] as const) {
        const before = new Date().toISOString().slice(0, 10)
        const reply = yield* client.get(`${path}${query}`)
        const after = new Date().toISOString().slice(0, 10)
        expect(reply.status, reply.text).toBe(200)
        // The user's time zone is UTC: today is the UTC date (either side of a midnight passing meanwhile).
        expect([before, after]).toContain(reply.body.to)
        expect(Date.parse(reply.body.to) - Date.parse(reply.body.from)).toBe((days - 1) * dayMs)
        expect(reply.body.days).toBe(days)
        expect(reply.body.glucoseBucketMinutes).toBe(days <= 14 ? 5 : 15)
      }
      const custom = yield* client.get(`${path}?from=2025-02-01&to=2026-02-01`)
      expect(custom.status, custom.text).toBe(200)
      expect(custom.body).toMatchObject({ from: "2025-02-01", to: "2026-02-01", days: 366, glucoseBucketMinutes: 60 })
      expect(custom.body.glucoseTarget).toEqual({ lowMgDl: 70, highMgDl: 180 })

      const refused = [
        ["?from=2026-03-02&to=2026-03-01", "`from` must not be after `to`"],
        ["?from=2025-01-01&to=2026-01-02", "at most 366 days"],
        ["?from=2026-03-01", "needs both `from` and `to`"],
        ["?to=2026-03-01", "needs both `from` and `to`"],
        ["?days=7&from=2026-03-01&to=2026-03-02", "either `days` or `from` and `to`"]
      ] as const
      for (const [query, text] of refused) {
        const reply = yield* client.get(`${path}${query}`)
        expectError(reply, 400, "BadRequest")
        expect(reply.body.message, query).toContain(text)
      }
      for (const query of ["?days=0", "?days=367", "?days=abc", "?from=2026-02-30&to=2026-03-01"]) {
        expectError(yield* client.get(`${path}${query}`), 400)
      }
    }))

  it.effect("the overview keeps each provider's records apart and counts each connection's time in range", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { users } = yield* appWithUsers([`providers-${tag()}`])
      const { user } = users[0]!
      const sql = yield* SqlClient.SqlClient
      const fitbit = yield* addConnection(user, "Fitbit")
      const garmin = yield* addConnection(user, "Garmin")
      const dexcom = yield* addConnection(user, "Dexcom")
      for (const [connection, provider, steps] of [[fitbit, "Fitbit", 9000], [garmin, "Garmin", 7000]] as const) {
        yield* sql`
          insert into daily_activity (connection_id, user_id, provider, provider_record_id, date, steps, calories_out,
            distance_meters, light_active_minutes, moderate_active_minutes, vigorous_active_minutes, sedentary_minutes,
            floors_climbed, raw_json)
          select ${connection}, ${user.id}, ${provider}, 'd' || i, '2026-03-01'::date + i, ${steps} + i, 2000, 5000,
            100, 20, 10, 700, 4, '{}'
          from generate_series(0, 6) i
        `
      }
      // Dexcom: 1 very low, 1 low, 5 in range (70 and 180 included), 2 high, 1 very high; and a reading the day
      // before the range, which no count may include.
      const values = [50, 60, 70, 100, 120, 140, 180, 181, 200, 260]
      const readings = [...values.map((v, i) => ({ v, t: `2026-03-03T0${i}:00:00Z`, date: "2026-03-03" })), {
        v: 300,
        t: "2026-02-28T12:00:00Z",
        date: "2026-02-28"
      }]
      for (const [i, r] of readings.entries()) {
        yield* sql`
          insert into glucose_readings (connection_id, user_id, provider, provider_record_id, date, system_time,
            display_time, value, unit, rate_unit, raw_json)
          values (${dexcom}, ${user.id}, 'Dexcom', ${`g${i}`}, ${r.date}::date, ${r.t}::timestamptz, ${r.t}::timestamptz,
            ${r.v}, 'mg/dL', 'mg/dL/min', '{}')
        `
      }
      const reply = yield* client.get(`/portal/api/users/${user.id}/overview?from=2026-03-01&to=2026-03-07`)
      expect(reply.status, reply.text).toBe(200)
      const activity = reply.body.dailyActivity as Array<any>
      expect(activity).toHaveLength(14)
      for (const [connectionId, provider, steps] of [[fitbit, "Fitbit", 9000], [garmin, "Garmin", 7000]] as const) {
        const own = activity.filter((a) => a.provider === provider)
        expect(own.map((a) => a.date)).toEqual(Array.from({ length: 7 }, (_, i) => `2026-03-0${i + 1}`))
        expect(own.every((a) => a.connectionId === connectionId)).toBe(true)
        expect(own.map((a) => a.steps)).toEqual(Array.from({ length: 7 }, (_, i) => steps + i))
      }
      expect(reply.body.glucose.map((g: any) => g.value)).toEqual(values)
      expect(reply.body.glucoseSummaries).toHaveLength(1)
      expect(reply.body.glucoseSummaries[0]).toMatchObject({
        connectionId: dexcom,
        provider: "Dexcom",
        days: 1,
        stats: {
          readings: 10,
          meanMgDl: 136.1,
          minMgDl: 50,
          maxMgDl: 260,
          timeInRanges: { veryLow: 10, low: 10, inRange: 50, high: 20, veryHigh: 10 }
        }
      })
    }))

  it.effect("outside sandbox mode the sandbox routes are 404 NotFound", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { appId, users } = yield* appWithUsers([`nosandbox-${tag()}`])
      expectError(yield* client.post("/portal/api/sandbox/test-users", { json: { appId } }), 404, "NotFound")
      expectError(
        yield* client.post(`/portal/api/sandbox/users/${users[0]!.user.id}/connections`, {
          json: { provider: "Dexcom" }
        }),
        404,
        "NotFound"
      )
      expectError(yield* client.get("/portal/api/sandbox/faults"), 404, "NotFound")
      expectError(yield* client.put("/portal/api/sandbox/faults/Dexcom", { json: { faults: [] } }), 404, "NotFound")
      const testUsers = `/portal/api/sandbox/apps/${appId}/test-users`
      expectError(yield* client.get(testUsers), 404, "NotFound")
      expectError(yield* client.get(`${testUsers}/${users[0]!.user.id}`), 404, "NotFound")
      expectError(yield* client.post(`${testUsers}/${users[0]!.user.id}/connect-all`), 404, "NotFound")
    }))
})
