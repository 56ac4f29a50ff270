/**
 * Dexcom API v3 end to end through HTTP, in sandbox mode: connecting goes through `/v3/oauth2`
 * (or `/v2/oauth2` when `DEXCOM_OAUTH_PATH` says so); a receiver's readings, written without any
 * offset, come out of endpoint 14 on the receiver's wall-clock date at the right instant; the
 * sentinels 39 and 401 are served with their status; and an unreadable record is quarantined
 * while the rest of its window is stored.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it as test, layer } from "@effect/vitest"
import type { SimulatorRegistry } from "@pulsebridge/sandbox"
import * as Simulators from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { serverConfig } from "../../src/platform/ServerConfig.js"
import { Quarantine } from "../../src/sync/Quarantine.js"
import { connect, simCalls } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

/** The seed sandbox mode gives the simulators. */
const seed = "pulsebridge-sandbox"
const today = () => localToday(new Date(), null)

const glucose = (userId: string, token: string, from: string, to: string) =>
  Effect.gen(function*() {
    const reply = yield* send(
      "GET",
      `/api/v1/users/${userId}/connections/glucose?${new URLSearchParams({ from, to, provider: "Dexcom" })}`,
      { bearer: token }
    )
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as { readings: Array<any>; events: Array<any>; calibrations: Array<any> }
  })

const connectAndSync = (label: string, simulatedUser: string) =>
  Effect.gen(function*() {
    const { token, user } = yield* createUser(`dexcom-v3-${label}-${Date.now()}`)
    const { connectionId, session } = yield* connect(user.id, token, "Dexcom", simulatedUser)
    const connection = yield* waitForSync(user.id, token, connectionId)
    return { token, user, connectionId, connection, session }
  })

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })("Dexcom v3", (it) => {
  it.effect("connects on /v3/oauth2; a receiver day comes out on its wall-clock date, at the right instant", () =>
    Effect.gen(function*() {
      // With the sandbox seed this account reads a G6 receiver set to UTC+09:00.
      const { connection, connectionId, session, token, user } = yield* connectAndSync("receiver", "dexcom-v3-14")
      expect(new URL(session.authorizationUrl).pathname).toBe("/sandbox/dexcom/v3/oauth2/login")
      expect((yield* simCalls("Dexcom", { path: "/v3/oauth2/token" })).length).toBeGreaterThan(0)
      expect(connection.syncState).toBe("Idle")

      const to = today()
      const data = yield* glucose(user.id, token, addDays(to, -31), addDays(to, 1))
      const byId = new Map(data.readings.map((r) => [r.recordId, r]))
      const dayStart = Date.parse(`${addDays(to, -5)}T00:00:00Z`)
      const served = Simulators.dexcomRecords(
        seed,
        connection.providerUserId,
        "egv",
        { start: dayStart, end: dayStart + 86_400_000 },
        Date.now()
      ) as Array<any>
      expect(served).toHaveLength(288)
      for (const egv of served) {
        // a receiver writes both times without an offset
        expect(egv.displayDevice).toBe("receiver")
        expect(egv.displayTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
        const reading = byId.get(egv.recordId)
        expect(reading, egv.recordId).toBeDefined()
        expect(reading.connectionId).toBe(connectionId)
        // the receiver's own day, not the UTC one
        expect(reading.date).toBe(egv.displayTime.slice(0, 10))
        expect(reading.systemTime).toBe(new Date(`${egv.systemTime}Z`).toISOString())
        // the wall clock at +09:00 is the system instant, not nine hours later
        expect(reading.displayTime).toBe(reading.systemTime)
        expect(reading.value).toBe(egv.value)
      }
      // from 15:00 UTC the receiver is already in the next day
      expect(served.some((egv) => byId.get(egv.recordId).date !== egv.systemTime.slice(0, 10))).toBe(true)

      // Sentinels are served as reported, with the status that says what they mean.
      const sentinels = data.readings.filter((r) => r.value === 39 || r.value === 401)
      expect(sentinels.length, "the month has readings out of the sensor's range").toBeGreaterThan(0)
      for (const r of sentinels) expect(r.status).toBe(r.value === 39 ? "Low" : "High")
      for (const r of data.readings.filter((r) => r.value !== null && r.value !== 39 && r.value !== 401)) {
        expect(r.value).toBeGreaterThanOrEqual(40)
        expect(r.value).toBeLessThanOrEqual(400)
      }
    }))

  it.effect("an app account with offsets written with seconds is read at that offset", () =>
    Effect.gen(function*() {
      // With the sandbox seed this account reads the G6 app on iOS at UTC-05:00, written `-05:00:00`.
      const { connection, token, user } = yield* connectAndSync("app", "dexcom-v3-2")
      const to = today()
      const data = yield* glucose(user.id, token, addDays(to, -31), addDays(to, 1))
      const byId = new Map(data.readings.map((r) => [r.recordId, r]))
      const dayStart = Date.parse(`${addDays(to, -4)}T00:00:00Z`)
      const served = Simulators.dexcomRecords(
        seed,
        connection.providerUserId,
        "egv",
        { start: dayStart, end: dayStart + 86_400_000 },
        Date.now()
      ) as Array<any>
      expect(served).toHaveLength(288)
      for (const egv of served) {
        expect(egv.systemTime).toMatch(/Z$/)
        expect(egv.displayTime).toMatch(/-05:00:00$/)
        const reading = byId.get(egv.recordId)
        expect(reading, egv.recordId).toBeDefined()
        expect(reading.date).toBe(egv.displayTime.slice(0, 10))
        expect(reading.displayTime).toBe(new Date(egv.systemTime).toISOString())
      }
      const events = data.events
      expect(events.length).toBeGreaterThan(0)
      // event values arrive as strings and are served as numbers
      for (const e of events) expect(typeof e.value).toBe("number")
    }))
})

describe("DEXCOM_OAUTH_PATH", () => {
  test.effect("defaults to /v3/oauth2, accepts /v2/oauth2, refuses anything else", () =>
    Effect.gen(function*() {
      const read = (entries: Record<string, string>) =>
        Effect.withConfigProvider(serverConfig, ConfigProvider.fromMap(new Map(Object.entries(entries))))
      expect((yield* read({})).dexcomOAuthPath).toBe("/v3/oauth2")
      expect((yield* read({ DEXCOM_OAUTH_PATH: "/v2/oauth2" })).dexcomOAuthPath).toBe("/v2/oauth2")
      const refused = yield* Effect.flip(read({ DEXCOM_OAUTH_PATH: "/v1/oauth2" }))
      expect(String(refused)).toMatch(/DEXCOM_OAUTH_PATH/)
    }))
})

// ---- an odd record, and the /v2 OAuth paths ----

/** Record ids the wrapped simulator spoiled: each `displayTime` made unreadable. */
const spoiled = new Set<string>()
const isSpoiled = (recordId: string) => recordId.startsWith("00")

/**
 * The Dexcom simulator with one record in about 256 carrying an impossible `displayTime`, as one
 * bad record would arrive from Dexcom: before record-by-record decoding it failed its whole window.
 */
const spoil = (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const response = yield* app
    if (!request.url.includes("/v3/users/self/egvs") || response.body._tag !== "Uint8Array") return response
    const body = JSON.parse(new TextDecoder().decode(response.body.body))
    for (const record of body.records) {
      if (isSpoiled(record.recordId)) {
        record.displayTime = "2026-02-30T25:61:00"
        spoiled.add(record.recordId)
      }
    }
    return HttpServerResponse.unsafeJson(body, { status: response.status })
  })

const spoilingRegistry: SimulatorRegistry = Simulators.simulatorRegistry.map((entry) =>
  entry.provider !== "Dexcom" ? entry : {
    ...entry,
    make: (options) => {
      const sim = entry.make(options)
      // the simulator's getters (`baseUrl`) still answer through the prototype
      return Object.assign(Object.create(sim), { app: spoil(sim.app) })
    }
  }
)

layer(
  makeTestServer({ sandbox: true, dexcomOAuthPath: "/v2/oauth2" }, { simulators: spoilingRegistry }),
  { timeout: "300 seconds", excludeTestServices: true }
)("Dexcom v3, odd records", (it) => {
  it.effect("DEXCOM_OAUTH_PATH=/v2/oauth2 connects on /v2; an unreadable record is quarantined, the rest stored", () =>
    Effect.gen(function*() {
      const { connection, connectionId, session, token, user } = yield* connectAndSync("odd", "dexcom-v3-23")
      expect(new URL(session.authorizationUrl).pathname).toBe("/sandbox/dexcom/v2/oauth2/login")
      expect((yield* simCalls("Dexcom", { path: "/v2/oauth2/token" })).length).toBeGreaterThan(0)
      expect(yield* simCalls("Dexcom", { path: "/v3/oauth2/token" })).toEqual([])

      // The window with bad records synced: the connection is Idle, not retrying it for ever.
      expect(connection.syncState).toBe("Idle")
      expect(spoiled.size).toBeGreaterThan(0)

      const to = today()
      const data = yield* glucose(user.id, token, addDays(to, -31), addDays(to, 1))
      const stored = new Set(data.readings.map((r) => r.recordId))
      const start = Date.parse(`${addDays(to, -27)}T00:00:00Z`)
      const end = Date.parse(`${addDays(to, -1)}T00:00:00Z`)
      const served = Simulators.dexcomRecords(seed, connection.providerUserId, "egv", { start, end }, Date.now())
      const good = served.filter((egv: any) => !isSpoiled(egv.recordId))
      expect(good.length).toBeLessThan(served.length)
      for (const egv of good) expect(stored.has(egv.recordId as string), egv.recordId as string).toBe(true)
      for (const id of spoiled) expect(stored.has(id), id).toBe(false)

      // The operator sees them: counted on the connection, listed with the reason and Dexcom's JSON.
      expect(connection.quarantinedRecords).toBe(spoiled.size)
      const held = yield* Effect.flatMap(Quarantine, (q) => q.list({ connectionId, limit: 1000 }))
      expect(new Set(held.map((row) => row.providerRecordId))).toEqual(spoiled)
      for (const row of held) {
        expect(row).toMatchObject({ provider: "Dexcom", kind: "GlucoseReading" })
        expect(row.reason).toContain("displayTime")
        expect(JSON.parse(row.rawJson)).toMatchObject({
          recordId: row.providerRecordId,
          displayTime: "2026-02-30T25:61:00"
        })
      }
    }))
})
