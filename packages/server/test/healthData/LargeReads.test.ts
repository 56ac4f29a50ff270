/**
 * The range reads (endpoints 10, 12, 14) over HTTP as large answers go: the fast path's bytes equal the
 * contract's schemas' encoding of the same rows (nulls, units, sub-second timestamps, any session time zone),
 * streamed answers, `Content-Encoding` negotiation (br, gzip, q-values, identity, `Vary`), ETags with 304, and
 * paging by `limit` and the `Link` header's cursor (every item exactly once), with bad values answered 400.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import type { UserId } from "@pulsebridge/domain"
import {
  DailyActivitySummary,
  DailyLoadSummary,
  GlucoseCalibration,
  GlucoseData,
  GlucoseEvent,
  GlucoseReading
} from "@pulsebridge/domain"
import { addConnection, createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as zlib from "node:zlib"
import { HealthData } from "../../src/healthData/HealthData.js"
import { RangeReads } from "../../src/healthData/RangeReads.js"

interface RawReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly bytes: Buffer
}

/** A GET with the user's token, its body as the bytes that came over the wire (not decoded). */
const getRaw = (path: string, token: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.get(`${baseUrl}${path}`).pipe(
        HttpClientRequest.bearerToken(token),
        HttpClientRequest.setHeaders(headers)
      )
    )
    const bytes = Buffer.from(yield* response.arrayBuffer)
    return { status: response.status, headers: response.headers, bytes } satisfies RawReply
  }).pipe(Effect.scoped, Effect.orDie)

const text = (reply: RawReply) => reply.bytes.toString("utf8")

const decoded = (reply: RawReply) => {
  const encoding = reply.headers["content-encoding"]
  const bytes = encoding === "br"
    ? zlib.brotliDecompressSync(reply.bytes)
    : encoding === "gzip"
    ? zlib.gunzipSync(reply.bytes)
    : reply.bytes
  return bytes.toString("utf8")
}

/**
 * `count` readings every 5 minutes from `start`, with odd values, sub-second times and nulls among them. Written
 * in SQL, as the other records here: the store takes times from JavaScript dates, which cannot carry microseconds.
 */
const insertReadings = (userId: string, connectionId: string, start: string, count: number, prefix = "r") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
    insert into glucose_readings (connection_id, user_id, provider, provider_record_id, date, system_time,
      display_time, value, trend, trend_rate, unit, rate_unit, status, transmitter_id, raw_json)
    select ${connectionId}, ${userId}, 'Dexcom', ${prefix} || i, (t + interval '5 hours')::date, t,
      t + interval '5 hours' + (i % 1000) * interval '1 microsecond',
      case when i % 7 = 0 then null else 40 + (i % 361) + (i % 3) * 0.1 end,
      case when i % 7 = 0 then null else 'Flat' end,
      case when i % 5 = 0 then null else -0.25 * (i % 9) end,
      case when i % 11 = 0 then 'mmol/L' else 'mg/dL' end, 'mg/dL/min',
      case when i % 13 = 0 then 'High' else null end,
      case when i % 17 = 0 then null else 'tx "5" \\ é 😀' end, '{}'
    from generate_series(0, ${count - 1}) i,
      lateral (select ${start}::timestamptz + i * interval '5 minutes' + (i % 997) * interval '1 microsecond' as t) s
  `)

/** The whole glucose answer as the contract's schemas encode the stored rows. */
const glucoseReference = (userId: string, from: string, to: string) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const where = sql`x.user_id = ${userId} and x.date between ${from} and ${to} and c.status <> 'Disconnected'`
    const order = sql.literal("order by x.date, x.provider, x.connection_id, x.system_time, x.provider_record_id")
    const readings = yield* sql<any>`
      select x.connection_id as "connectionId", x.provider, x.date::text as date, x.system_time as "systemTime",
        x.display_time as "displayTime", x.value, x.trend, x.trend_rate as "trendRate", x.unit,
        x.rate_unit as "rateUnit", x.status, x.transmitter_id as "transmitterId", x.provider_record_id as "recordId"
      from glucose_readings x join connections c on c.id = x.connection_id where ${where} ${order}`
    const events = yield* sql<any>`
      select x.connection_id as "connectionId", x.provider, x.date::text as date, x.system_time as "systemTime",
        x.display_time as "displayTime", x.event_type as "eventType", x.event_sub_type as "eventSubType", x.value,
        x.unit, x.provider_record_id as "eventId"
      from glucose_events x join connections c on c.id = x.connection_id
      where ${where} and (x.event_status is null or x.event_status <> 'Deleted') ${order}`
    const calibrations = yield* sql<any>`
      select x.connection_id as "connectionId", x.provider, x.date::text as date, x.system_time as "systemTime",
        x.display_time as "displayTime", x.value, x.unit
      from glucose_calibrations x join connections c on c.id = x.connection_id where ${where} ${order}`
    const data = new GlucoseData({
      readings: readings.map((r: any) => new GlucoseReading(r)),
      events: events.map((e: any) => new GlucoseEvent(e)),
      calibrations: calibrations.map((c: any) => new GlucoseCalibration(c))
    })
    return JSON.stringify(Schema.encodeSync(GlucoseData)(data))
  })

/** Follows `Link: <...>; rel="next"` from `path` to the last page; the pages' bodies and their count. */
const walk = (path: string, token: string) =>
  Effect.gen(function*() {
    const pages: Array<any> = []
    let next: string | undefined = path
    while (next !== undefined) {
      const reply = yield* getRaw(next, token)
      expect(reply.status, text(reply)).toBe(200)
      pages.push(JSON.parse(text(reply)))
      const link = reply.headers["link"]
      if (link === undefined) {
        next = undefined
      } else {
        const match = /^<([^>]+)>; rel="next"$/.exec(link)
        expect(match, link).not.toBeNull()
        next = match![1]
        expect(next).toMatch(/^\/api\/v1\/users\/[^?]+\?/)
      }
      expect(pages.length).toBeLessThan(1000)
    }
    return pages
  })

it.layer(makeTestServer(), { timeout: "180 seconds" })("large range reads", (it) => {
  it.effect("the glucose answer is the schemas' encoding of the rows, byte for byte, also streamed", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-glucose")
      const dexcom = yield* addConnection(user, "Dexcom")
      const gone = yield* addConnection(user, "Dexcom", { status: "Disconnected" })
      // 21,000 readings: more than one streamed page of 10,000; times with microseconds, nulls and two units.
      yield* insertReadings(user.id, dexcom, "2026-01-01T00:00:00.123456Z", 21_000)
      yield* insertReadings(user.id, gone, "2026-01-01T00:00:00Z", 10, "gone")
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into glucose_events (connection_id, user_id, provider, provider_record_id, date, system_time,
          display_time, event_status, event_type, event_sub_type, value, unit, raw_json)
        values (${dexcom}, ${user.id}, 'Dexcom', 'e1', '2026-01-02', '2026-01-02T08:00:00.5Z', '2026-01-02T09:00:00Z',
            null, 'carbs', null, null, null, '{}'),
          (${dexcom}, ${user.id}, 'Dexcom', 'e2', '2026-01-02', '2026-01-02T07:00:00Z', '2026-01-02T08:00:00Z',
            'Deleted', 'insulin', 'fastActing', 4.5, 'units', '{}'),
          (${dexcom}, ${user.id}, 'Dexcom', 'e3', '2026-01-03', '2026-01-03T07:00:00.999999Z',
            '2026-01-03T01:00:00Z', 'Created', 'insulin', 'fastActing', 4.5, 'units', '{}')
      `
      yield* sql`
        insert into glucose_calibrations (connection_id, user_id, provider, provider_record_id, date, system_time,
          display_time, value, unit, raw_json)
        values (${dexcom}, ${user.id}, 'Dexcom', 'c1', '2026-01-02', '2026-01-02T06:00:00.000001Z',
          '2026-01-02T06:00:00Z', 5.5, 'mmol/L', '{}')
      `
      const path = `/api/v1/users/${user.id}/connections/glucose?from=2026-01-01&to=2026-03-31`
      const reference = yield* glucoseReference(user.id, "2026-01-01", "2026-03-31")

      const plain = yield* getRaw(path, token)
      expect(plain.status).toBe(200)
      expect(plain.headers["content-type"]).toMatch(/^application\/json/)
      expect(plain.headers["content-encoding"]).toBeUndefined()
      // Streamed: sent in chunks, without a length known in advance.
      expect(plain.headers["content-length"]).toBeUndefined()
      expect(plain.headers["vary"]).toMatch(/accept-encoding/i)
      expect(text(plain)).toBe(reference)
      // Streamed and compressed.
      for (const encoding of ["br", "gzip"]) {
        const zipped = yield* getRaw(path, token, { "accept-encoding": encoding })
        expect(zipped.headers["content-encoding"]).toBe(encoding)
        expect(decoded(zipped)).toBe(reference)
      }
      const data = JSON.parse(text(plain))
      expect(data.readings).toHaveLength(21_000)
      expect(data.events.map((e: any) => e.eventId)).toEqual(["e1", "e3"])
      expect(data.readings[0].systemTime).toBe("2026-01-01T00:00:00.123Z")
      expect(data.calibrations).toEqual([{
        connectionId: dexcom,
        provider: "Dexcom",
        date: "2026-01-02",
        systemTime: "2026-01-02T06:00:00.000Z",
        displayTime: "2026-01-02T06:00:00.000Z",
        value: 5.5,
        unit: "mmol/L"
      }])

      // A small answer goes in one piece, with its length, and is the same as the schemas' encoding too.
      const day = yield* getRaw(`/api/v1/users/${user.id}/connections/glucose?from=2026-01-02&to=2026-01-02`, token)
      expect(day.headers["content-length"]).toBe(String(day.bytes.length))
      expect(text(day)).toBe(yield* glucoseReference(user.id, "2026-01-02", "2026-01-02"))

      // The fast path's timestamps do not depend on the database session's time zone.
      const reads = yield* Effect.provide(RangeReads, RangeReads.Default)
      const zoned = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`set local time zone 'Pacific/Chatham'`
        return yield* Effect.forEach(
          reads.glucose.sections,
          (section) => section.page(user.id as UserId, { from: "2026-01-02", to: "2026-01-02" }, null, undefined, false)
        )
      }))
      const [zonedReadings, zonedEvents, zonedCalibrations] = zoned
      expect(zonedReadings!.length).toBeGreaterThan(200)
      expect(JSON.stringify({ readings: zonedReadings, events: zonedEvents, calibrations: zonedCalibrations })).toBe(
        text(day)
      )
    }))

  it.effect("endpoints 10 and 12 answer the schemas' encoding of their rows, byte for byte", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-daily")
      const sql = yield* SqlClient.SqlClient
      const fitbit = yield* addConnection(user, "Fitbit")
      const whoop = yield* addConnection(user, "WHOOP")
      yield* sql`
        insert into daily_activity (connection_id, user_id, provider, provider_record_id, date, steps, calories_out,
          distance_meters, light_active_minutes, moderate_active_minutes, vigorous_active_minutes, sedentary_minutes,
          floors_climbed, raw_json)
        select ${fitbit}, ${user.id}, 'Fitbit', 'd' || i, '2026-01-01'::date + i, i * 1000, 2100.5 + i / 3.0,
          0.1 * i, 1e-7, 20, 10, 700, 4, '{}'
        from generate_series(0, 40) i
      `
      yield* sql`
        insert into daily_load (connection_id, user_id, provider, provider_record_id, date, window_kind, window_start,
          window_end, load_score, load_score_scale, energy_kilocalories, average_heart_rate, max_heart_rate,
          distance_meters, steps, zone_durations_json, source_confidence, score_state, raw_json)
        select ${whoop}, ${user.id}, 'WHOOP', 'w' || i, '2026-01-01'::date + i,
          'PhysiologicalCycle', '2026-01-01T06:00:00.5555Z'::timestamptz + i * interval '1 day',
          case when i = 40 then null else '2026-01-02T05:59:59.999Z'::timestamptz + i * interval '1 day' end,
          12.5 + i / 7.0, 'WhoopStrain0To21', 2000 / 4.184, 70, 160,
          case when i % 2 = 0 then null else 1234.5 end, case when i % 3 = 0 then null else i end,
          '{"zone_one_milli":1}', 'ProviderNative', 'SCORED', '{}'
        from generate_series(0, 40) i
      `
      const health = yield* HealthData
      const range = { from: "2026-01-01", to: "2026-03-01" }
      const activity = yield* getRaw(
        `/api/v1/users/${user.id}/connections/activity?from=2026-01-01&to=2026-03-01`,
        token
      )
      expect(text(activity)).toBe(JSON.stringify(
        Schema.encodeSync(Schema.Array(DailyActivitySummary))(yield* health.activityRange(user.id as UserId, range))
      ))
      const load = yield* getRaw(
        `/api/v1/users/${user.id}/connections/activity-load?from=2026-01-01&to=2026-03-01`,
        token
      )
      const loadReference = yield* health.loadRange(user.id as UserId, range)
      expect(loadReference).toHaveLength(41)
      expect(text(load)).toBe(JSON.stringify(Schema.encodeSync(Schema.Array(DailyLoadSummary))(loadReference)))
      expect(JSON.parse(text(load))[40].windowEndUtc).toBeNull()

      // Paging walks the same items, once each, in the same order.
      for (const endpoint of ["activity", "activity-load"]) {
        const whole = JSON.parse(text(endpoint === "activity" ? activity : load))
        const pages = yield* walk(
          `/api/v1/users/${user.id}/connections/${endpoint}?from=2026-01-01&to=2026-03-01&limit=7`,
          token
        )
        expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 7, 7, 6])
        expect(pages.flat()).toEqual(whole)
      }
    }))

  it.effect("compression follows Accept-Encoding: br or gzip by q-value, identity when refused, Vary always", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-compressed")
      const dexcom = yield* addConnection(user, "Dexcom")
      yield* insertReadings(user.id, dexcom, "2026-01-01T00:00:00Z", 6000)
      const path = `/api/v1/users/${user.id}/connections/glucose?from=2026-01-01&to=2026-01-31`
      const plain = yield* getRaw(path, token)
      const cases: ReadonlyArray<readonly [string, string | undefined]> = [
        ["br, gzip", "br"],
        ["gzip, deflate, br", "br"],
        ["gzip", "gzip"],
        ["gzip;q=1, br;q=0.5", "gzip"],
        ["br;q=0, gzip;q=0.1", "gzip"],
        ["*", "br"],
        ["*;q=0.5, br;q=0", "gzip"],
        ["identity", undefined],
        ["br;q=0, gzip;q=0", undefined],
        ["deflate", undefined],
        ["", undefined]
      ]
      for (const [accept, expected] of cases) {
        const reply = yield* getRaw(path, token, { "accept-encoding": accept })
        expect(reply.status).toBe(200)
        expect(reply.headers["content-encoding"], accept).toBe(expected)
        expect(reply.headers["vary"], accept).toMatch(/accept-encoding/i)
        expect(decoded(reply), accept).toBe(text(plain))
        if (expected !== undefined) expect(reply.bytes.length).toBeLessThan(plain.bytes.length / 5)
      }
      // A paged (unstreamed) answer is compressed too, and the rest of the API with it.
      const page = yield* getRaw(`${path}&limit=100`, token, { "accept-encoding": "gzip" })
      expect(page.headers["content-encoding"]).toBe("gzip")
      expect(JSON.parse(decoded(page)).readings).toHaveLength(100)
      const openapi = yield* getRaw("/openapi.json", token, { "accept-encoding": "br" })
      expect(openapi.headers["content-encoding"]).toBe("br")
      expect(JSON.parse(decoded(openapi)).openapi).toMatch(/^3\./)
      // Small answers and errors go as they are: JSON.
      const small = yield* getRaw(`/api/v1/users/${user.id}/connections/glucose?from=2025-01-01&to=2025-01-01`, token, {
        "accept-encoding": "br"
      })
      expect(small.headers["content-encoding"]).toBeUndefined()
      expect(JSON.parse(text(small))).toEqual({ readings: [], events: [], calibrations: [] })
      const error = yield* getRaw(`/api/v1/users/${user.id}/connections/glucose?from=2026-01-02&to=2026-01-01`, token, {
        "accept-encoding": "br"
      })
      expect(error.status).toBe(400)
      expect(JSON.parse(decoded(error))._tag).toBeTypeOf("string")
    }))

  it.effect("a range read's ETag gives 304 with no body until the range's data changes", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-etag")
      const dexcom = yield* addConnection(user, "Dexcom")
      yield* insertReadings(user.id, dexcom, "2026-01-01T00:00:00Z", 100)
      for (const endpoint of ["activity", "activity-load", "glucose"]) {
        const path = `/api/v1/users/${user.id}/connections/${endpoint}?from=2026-01-01&to=2026-01-31`
        const first = yield* getRaw(path, token)
        const etag = first.headers["etag"]!
        expect(etag, endpoint).toMatch(/^W\/"[A-Za-z0-9_-]+"$/)
        const again = yield* getRaw(path, token, { "if-none-match": etag, "accept-encoding": "br" })
        expect(again.status, endpoint).toBe(304)
        expect(again.bytes.length).toBe(0)
        expect(again.headers["etag"]).toBe(etag)
        expect((yield* getRaw(path, token, { "if-none-match": `"other", ${etag}` })).status).toBe(304)
        expect((yield* getRaw(path, token, { "if-none-match": "*" })).status).toBe(304)
        expect((yield* getRaw(path, token, { "if-none-match": `W/"other"` })).status).toBe(200)
        // Another range or page is another answer.
        const other = yield* getRaw(`${path}&limit=10`, token, { "if-none-match": etag })
        expect(other.status).toBe(200)
        expect(other.headers["etag"]).not.toBe(etag)
      }
      const path = `/api/v1/users/${user.id}/connections/glucose?from=2026-01-01&to=2026-01-31`
      const etag = (yield* getRaw(path, token)).headers["etag"]!
      const sql = yield* SqlClient.SqlClient
      // A changed value, a new row, a removed row and a disconnected connection each change it.
      const changes = [
        sql`update glucose_readings set value = 99 where connection_id = ${dexcom} and provider_record_id = 'r5'`,
        insertReadings(user.id, dexcom, "2026-01-20T00:00:00Z", 1, "new"),
        sql`delete from glucose_readings where connection_id = ${dexcom} and provider_record_id = 'r6'`,
        sql`update connections set status = 'Disconnected' where id = ${dexcom}`
      ]
      let previous = etag
      for (const change of changes) {
        yield* change
        const reply = yield* getRaw(path, token, { "if-none-match": previous })
        expect(reply.status).toBe(200)
        expect(reply.headers["etag"]).not.toBe(previous)
        previous = reply.headers["etag"]!
      }
    }))

  it.effect("a page's ETag is the page's own: a change inside the page changes it, one after it does not", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-page-etag")
      const dexcom = yield* addConnection(user, "Dexcom")
      yield* insertReadings(user.id, dexcom, "2026-01-01T00:00:00Z", 500)
      const path = `/api/v1/users/${user.id}/connections/glucose?from=2026-01-01&to=2026-01-31&limit=100`
      const first = yield* getRaw(path, token)
      expect(first.status).toBe(200)
      const etag = first.headers["etag"]!
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/)
      const again = yield* getRaw(path, token, { "if-none-match": etag })
      expect(again.status).toBe(304)
      expect(again.bytes.length).toBe(0)
      expect(again.headers["etag"]).toBe(etag)
      expect(again.headers["link"]).toBe(first.headers["link"])
      const sql = yield* SqlClient.SqlClient
      // Readings r1..r500 five minutes apart: the first page holds r1..r100. A change far after it keeps the page.
      yield* sql`update glucose_readings set value = 99 where connection_id = ${dexcom} and provider_record_id = 'r400'`
      expect((yield* getRaw(path, token, { "if-none-match": etag })).status).toBe(304)
      // The second page, through the first one's link, is another answer with its own ETag.
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers["link"]!)![1]!
      const second = yield* getRaw(link, token, { "if-none-match": etag })
      expect(second.status).toBe(200)
      expect(second.headers["etag"]).not.toBe(etag)
      // A changed value inside the page, a removed row of it and a new row within it each change it.
      const changes = [
        sql`update glucose_readings set value = 98 where connection_id = ${dexcom} and provider_record_id = 'r50'`,
        sql`delete from glucose_readings where connection_id = ${dexcom} and provider_record_id = 'r60'`,
        insertReadings(user.id, dexcom, "2026-01-01T00:02:00Z", 1, "new")
      ]
      let previous = etag
      for (const change of changes) {
        yield* change
        const reply = yield* getRaw(path, token, { "if-none-match": previous })
        expect(reply.status).toBe(200)
        expect(reply.headers["etag"]).not.toBe(previous)
        previous = reply.headers["etag"]!
      }
    }))

  it.effect("paging by limit walks every glucose item exactly once, readings then events then calibrations", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-paging")
      const dexcom = yield* addConnection(user, "Dexcom")
      // A second connection (a user has one per provider; its rows say Dexcom all the same, as keys must tie).
      const second = yield* addConnection(user, "Garmin")
      yield* insertReadings(user.id, dexcom, "2026-01-01T00:00:00Z", 2500)
      // Another connection's readings at the same times, so that keys tie on everything but the connection.
      yield* insertReadings(user.id, second, "2026-01-01T00:00:00Z", 2500)
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into glucose_events (connection_id, user_id, provider, provider_record_id, date, system_time,
          display_time, event_status, event_type, event_sub_type, value, unit, raw_json)
        select ${dexcom}, ${user.id}, 'Dexcom', 'e' || i, '2026-01-02', '2026-01-02T08:00:00Z', '2026-01-02T08:00:00Z',
          null, 'carbs', null, i, 'grams', '{}'
        from generate_series(1, 30) i
      `
      yield* sql`
        insert into glucose_calibrations (connection_id, user_id, provider, provider_record_id, date, system_time,
          display_time, value, unit, raw_json)
        select ${dexcom}, ${user.id}, 'Dexcom', 'c' || i, '2026-01-03', '2026-01-03T06:00:00Z',
          '2026-01-03T06:00:00Z', 100 + i, 'mg/dL', '{}'
        from generate_series(1, 3) i
      `
      const base = `/api/v1/users/${user.id}/connections/glucose?from=2026-01-01&to=2026-01-31`
      const whole = JSON.parse(text(yield* getRaw(base, token)))
      expect(whole.readings).toHaveLength(5000)
      for (const limit of [1000, 999, 5015, 5030, 5033, 10_000]) {
        const pages = yield* walk(`${base}&limit=${limit}`, token)
        const merged = {
          readings: pages.flatMap((p) => p.readings),
          events: pages.flatMap((p) => p.events),
          calibrations: pages.flatMap((p) => p.calibrations)
        }
        expect(merged, `limit ${limit}`).toEqual(whole)
        expect(pages.length, `limit ${limit}`).toBe(Math.ceil(5033 / limit))
        for (const page of pages.slice(0, -1)) {
          expect(page.readings.length + page.events.length + page.calibrations.length).toBe(limit)
        }
        for (const page of pages) expect(Object.keys(page)).toEqual(["readings", "events", "calibrations"])
      }

      // A page crossing from readings into events.
      const pages = yield* walk(`${base}&limit=4990`, token)
      expect(pages.map((p) => [p.readings.length, p.events.length, p.calibrations.length])).toEqual([
        [4990, 0, 0],
        [10, 30, 3]
      ])
    }))

  it.effect("a bad limit or cursor is a 400 JSON error", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("large-bad")
      const dexcom = yield* addConnection(user, "Dexcom")
      yield* insertReadings(user.id, dexcom, "2026-01-01T00:00:00Z", 20)
      const base = `/api/v1/users/${user.id}/connections`
      const first = yield* getRaw(`${base}/glucose?from=2026-01-01&to=2026-01-31&limit=5`, token)
      const cursor = /cursor=([^&>]+)/.exec(first.headers["link"]!)![1]!
      const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
      for (const endpoint of ["activity", "activity-load", "glucose"]) {
        for (
          const query of [
            "limit=0",
            "limit=-1",
            "limit=10001",
            "limit=abc",
            "limit=1.5",
            "limit=01",
            "limit=",
            "limit=5&cursor=",
            "limit=5&cursor=!!!",
            "limit=5&cursor=bm90IGpzb24",
            `limit=5&cursor=${forged({ r: "glucose", s: 9, k: null })}`,
            `limit=5&cursor=${forged({ r: "glucose", s: 0, k: ["2026-01-01", "Dexcom", "not-a-uuid", "x", "y"] })}`,
            `limit=5&cursor=${
              forged({ r: "glucose", s: 0, k: ["2026-02-30", "Dexcom", dexcom, "2026-01-01T00:00:00.000000Z", "r1"] })
            }`,
            `limit=5&cursor=${forged({ r: "activity", s: 0, k: ["2026-01-01", "Dexcom", "bad"] })}`,
            ...(endpoint === "glucose" ? [] : [`limit=5&cursor=${cursor}`])
          ]
        ) {
          const reply = yield* getRaw(`${base}/${endpoint}?from=2026-01-01&to=2026-01-31&${query}`, token)
          expect(reply.status, `${endpoint}?${query}: ${text(reply)}`).toBe(400)
          const body = JSON.parse(text(reply))
          expect(body._tag).toMatch(/BadRequest|HttpApiDecodeError/)
          expect(typeof body.message).toBe("string")
        }
      }
    }))
})
