/**
 * Garmin data: the dailies normaliser on the documented summary and on re-sent copies, push and
 * ping bodies, and `fetchWindow` / `pullGarminCallback` against the served Garmin simulator (which
 * checks every OAuth 1.0a signature): upload windows of at most 86400 s covering the dates, the
 * latest copy of each day, and each failure the engine reacts to.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { CanonicalBatch, DailyActivityRecord } from "@pulsebridge/providers"
import {
  emptyBatch,
  garminBackfillRanges,
  GarminDaily,
  GarminData,
  garminMaxPullSeconds,
  GarminOAuth2Adapter,
  garminPingCallbacks,
  garminPushDailies,
  garminSummaries,
  garminUploadWindows,
  garminWebhooks,
  isAccessLost,
  normaliseGarminDailies,
  normaliseGarminDaily,
  pullGarminCallback
} from "@pulsebridge/providers"
import { garminDaily, serveHttpApp } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { connect, NOW, simClient, withHttp } from "../fixtures/Simulated.js"
import { app, post } from "../fixtures/Webhook.js"

const decode = Schema.decodeUnknownSync(GarminDaily)

/** The Health API spec's example daily. */
const specDaily = {
  userId: "4aacafe82427c251df9c9592d0c06768",
  userAccessToken: "8f57a6f1-26ba-4b05-a7cd-c6b525a4c7a2",
  summaryId: " EXAMPLE_67891",
  calendarDate: "2016-01-11",
  activityType: "WALKING",
  activeKilocalories: 321,
  bmrKilocalories: 1731,
  consumedCalories: 1121,
  steps: 4210,
  distanceInMeters: 3146.5,
  durationInSeconds: 86400,
  activeTimeInSeconds: 12240,
  startTimeInSeconds: 1452470400,
  startTimeOffsetInSeconds: 3600,
  moderateIntensityDurationInSeconds: 81870,
  vigorousIntensityDurationInSeconds: 4530,
  floorsClimbed: 8,
  minHeartRateInBeatsPerMinute: 59,
  averageHeartRateInBeatsPerMinute: 64,
  maxHeartRateInBeatsPerMinute: 112,
  timeOffsetHeartRateSamples: { "15": 75, "30": 75, "3180": 76, "3195": 65 },
  averageStressLevel: 43,
  stepsGoal: 4500
}

/** The day of a simulator summary: its `calendarDate`, or the local date of its start. */
const dayOf = (d: ReturnType<typeof garminDaily>): string =>
  (d as { calendarDate?: string }).calendarDate ??
    new Date((d.startTimeInSeconds + d.startTimeOffsetInSeconds) * 1000).toISOString().slice(0, 10)

/** What a simulator summary must normalise to. */
const expected = (d: ReturnType<typeof garminDaily>, userId: string): DailyActivityRecord => ({
  providerRecordId: `${userId}:${dayOf(d)}`,
  date: dayOf(d),
  steps: d.steps,
  caloriesOut: d.activeKilocalories + d.bmrKilocalories,
  activeCalories: d.activeKilocalories,
  distanceMeters: d.distanceInMeters,
  lightActiveMinutes:
    Math.max(0, d.activeTimeInSeconds - d.moderateIntensityDurationInSeconds - d.vigorousIntensityDurationInSeconds) /
    60,
  moderateActiveMinutes: d.moderateIntensityDurationInSeconds / 60,
  vigorousActiveMinutes: d.vigorousIntensityDurationInSeconds / 60,
  sedentaryMinutes: 0,
  floorsClimbed: d.floorsClimbed,
  restingHeartRate: d.restingHeartRateInBeatsPerMinute,
  coveredSeconds: d.durationInSeconds,
  rawJson: expect.any(String) as unknown as string
})

const specUser = specDaily.userId

describe("normaliseGarminDaily", () => {
  it("maps the documented summary: total = active + BMR, seconds to minutes, keyed by user and day", () => {
    const record = normaliseGarminDaily(decode(specDaily), specUser)
    expect(record).toEqual({
      providerRecordId: `${specUser}:2016-01-11`,
      date: "2016-01-11",
      steps: 4210,
      caloriesOut: 2052,
      activeCalories: 321,
      distanceMeters: 3146.5,
      // the example's moderate time exceeds its active time: no light minutes are left
      lightActiveMinutes: 0,
      moderateActiveMinutes: 1364.5,
      vigorousActiveMinutes: 75.5,
      sedentaryMinutes: 0,
      floorsClimbed: 8,
      restingHeartRate: null,
      coveredSeconds: 86_400,
      rawJson: expect.any(String)
    })
    const { userAccessToken: _token, ...withoutToken } = specDaily
    expect(JSON.parse(record.rawJson)).toEqual(withoutToken)
    expect(record.rawJson).not.toContain(specDaily.userAccessToken)
  })

  it("a day uploaded partial then full (new summaryId each time) leaves one record with the full values", () => {
    // Garmin's updates of one day: same startTimeInSeconds and calendarDate, a summaryId per upload.
    const partial = {
      ...specDaily,
      summaryId: "x4aacafe-56934e00-7080",
      durationInSeconds: 28_800,
      steps: 1200,
      activeKilocalories: 80,
      bmrKilocalories: 577
    }
    const full = { ...specDaily, summaryId: "x4aacafe-56934e00-15180", durationInSeconds: 86_400 }
    const other = { ...specDaily, summaryId: "x4aacafe-56949f80-15180", calendarDate: "2016-01-12" }
    for (const order of [[partial, other, full], [full, other, partial]]) {
      const { quarantined, records } = normaliseGarminDailies(order, specUser)
      expect(quarantined).toEqual([])
      expect(records.map((r) => [r.providerRecordId, r.steps, r.caloriesOut])).toEqual(
        expect.arrayContaining([
          [`${specUser}:2016-01-11`, 4210, 2052],
          [`${specUser}:2016-01-12`, 4210, 2052]
        ])
      )
      expect(records).toHaveLength(2)
      expect(JSON.parse(records.find((r) => r.date === "2016-01-11")!.rawJson).summaryId).toBe(full.summaryId)
    }
    // two uploads covering the same span: the later one wins
    const later = { ...full, summaryId: "x4aacafe-56934e00-15180b", steps: 4300 }
    const { records } = normaliseGarminDailies([full, later], specUser)
    expect(records.map((r) => r.steps)).toEqual([4300])
  })

  it("a daily without calendarDate gets the local date of startTimeInSeconds + startTimeOffsetInSeconds", () => {
    const { calendarDate: _date, ...undated } = specDaily
    // UTC-6: the local day 2016-01-11 starts at 06:00Z
    const west = { ...undated, startTimeInSeconds: 1452492000, startTimeOffsetInSeconds: -21_600 }
    // UTC+13: the local day 2016-01-11 starts at 11:00Z the day before
    const east = { ...undated, summaryId: "x2", startTimeInSeconds: 1452423600, startTimeOffsetInSeconds: 46_800 }
    const { quarantined, records } = normaliseGarminDailies([west, east], specUser)
    expect(quarantined).toEqual([])
    expect(records.map((r) => [r.date, r.providerRecordId])).toEqual([["2016-01-11", `${specUser}:2016-01-11`]])
    expect(normaliseGarminDaily(decode(west), specUser).date).toBe("2016-01-11")
    expect(normaliseGarminDaily(decode(east), specUser).date).toBe("2016-01-11")
  })

  it("quarantines a bad daily with its reason and raw JSON (never the access token) and stores the rest", () => {
    const { calendarDate: _date, startTimeInSeconds: _start, ...dateless } = specDaily
    const negative = { ...specDaily, summaryId: "x3", calendarDate: "2016-01-12", steps: -40 }
    const good = { ...specDaily, summaryId: "x4", calendarDate: "2016-01-13" }
    const { quarantined, records } = normaliseGarminDailies([dateless, negative, "not a daily", good], specUser)
    expect(records.map((r) => r.date)).toEqual(["2016-01-13"])
    expect(quarantined.map((q) => [q.kind, q.providerRecordId])).toEqual([
      ["DailyActivity", null],
      ["DailyActivity", `${specUser}:2016-01-12`],
      ["DailyActivity", null]
    ])
    expect(quarantined[0]!.reason).toContain("calendarDate")
    expect(quarantined[1]!.reason).toContain("steps")
    for (const q of quarantined) expect(q.rawJson).not.toContain(specDaily.userAccessToken)
    expect(JSON.parse(quarantined[1]!.rawJson)).toMatchObject({ summaryId: "x3", steps: -40 })
  })

  it("keeps a wheelchair user's pushes and push distance in the raw JSON", () => {
    const wheelchair = { ...specDaily, pushes: 3120, pushDistanceInMeters: 5928.4 }
    const record = normaliseGarminDaily(decode(wheelchair), specUser)
    expect(JSON.parse(record.rawJson)).toMatchObject({ pushes: 3120, pushDistanceInMeters: 5928.4 })
  })

  it("reads a push body for its user, skipping ping items and other users' items", () => {
    const body = {
      dailies: [
        { ...specDaily, steps: 100 },
        { userId: specUser, uploadStartTimeInSeconds: 1, uploadEndTimeInSeconds: 2, callbackURL: "https://x/y" },
        { ...specDaily, summaryId: 42 },
        { ...specDaily, steps: 4300 },
        { ...specDaily, userId: "u-3", summaryId: "other" }
      ]
    }
    const items = garminPushDailies(body, specUser)
    expect(items).toHaveLength(3)
    const { quarantined, records } = normaliseGarminDailies(items, specUser)
    expect(records.map((r) => [r.providerRecordId, r.steps])).toEqual([[`${specUser}:2016-01-11`, 4300]])
    expect(quarantined.map((q) => q.reason)).toEqual([expect.stringContaining("summaryId")])
    expect(garminPushDailies({ epochs: [] }, specUser)).toEqual([])
    expect(garminPushDailies("not json", specUser)).toEqual([])
    expect(garminPingCallbacks(body)).toEqual([{ userId: specUser, callbackUrl: "https://x/y" }])
  })

  it("refuses a summary without its key fields", () => {
    expect(() => decode({ ...specDaily, calendarDate: "2016-13-01" })).toThrow()
    expect(() => decode({ ...specDaily, summaryId: "" })).toThrow()
  })
})

describe("garminUploadWindows", () => {
  it("covers the local dates in contiguous upload windows of at most 86400 s, capped at now", () => {
    const windows = garminUploadWindows({ from: "2025-06-08", to: "2025-06-14" }, new Date(NOW))
    expect(windows[0]!.start).toBe(Date.parse("2025-06-07T10:00:00Z") / 1000)
    expect(windows[windows.length - 1]!.end).toBe(Date.parse(NOW) / 1000)
    windows.forEach((w, i) => {
      expect(w.end - w.start).toBeGreaterThan(0)
      expect(w.end - w.start).toBeLessThanOrEqual(garminMaxPullSeconds)
      if (i > 0) expect(w.start).toBe(windows[i - 1]!.end)
    })
    // long past: a day and a half after the latest midnight ending the last date
    const past = garminUploadWindows({ from: "2025-01-01", to: "2025-01-01" }, new Date(NOW))
    expect(past[past.length - 1]!.end).toBe(Date.parse("2025-01-03T12:00:00Z") / 1000)
    expect(garminUploadWindows({ from: "2025-06-20", to: "2025-06-21" }, new Date(NOW))).toEqual([])
  })
})

const pullPath = "/wellness-api/rest/dailies"

/** A receiver for Garmin's push and ping deliveries. */
const receiver = Effect.gen(function*() {
  const bodies: Array<unknown> = []
  const app = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    bodies.push(JSON.parse(yield* Effect.orDie(request.text)))
    return HttpServerResponse.empty({ status: 200 })
  })
  const server = yield* serveHttpApp(app)
  return { url: `${server.baseUrl}/garmin`, bodies }
})

describe("GarminData.fetchWindow against the simulator (OAuth 1.0a)", () => {
  it.scopedLive("pulls the window's upload times and keeps each day's latest, complete summary", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Garmin")
      const window = { from: "2025-06-08", to: "2025-06-14" }
      const batch = yield* GarminData.fetchWindow(input(), window)
      const dates = ["2025-06-08", "2025-06-09", "2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13", "2025-06-14"]
      const inWindow = batch.dailyActivity.filter((r) => r.date >= window.from && r.date <= window.to)
      expect(inWindow.map((r) => r.date).sort()).toEqual(dates)
      for (const record of inWindow) {
        const day = garminDaily(seed, providerUserId, record.date, 1)
        expect(record).toEqual(expected(day, providerUserId))
        const { userAccessToken: _token, ...raw } = JSON.parse(record.rawJson)
        expect(raw).toEqual({ userId: providerUserId, ...JSON.parse(JSON.stringify(day)) })
      }
      // some of the simulator's days come without calendarDate, as Garmin allows
      expect(inWindow.some((r) => !("calendarDate" in JSON.parse(r.rawJson)))).toBe(true)
      // one record per day although earlier uploads (other summaryIds) of the same days came back too
      const ids = batch.dailyActivity.map((r) => r.providerRecordId)
      expect(new Set(ids).size).toBe(ids.length)
      expect(batch.quarantined).toEqual([])
      expect(batch.dailyActivity.every((r) => !r.rawJson.includes(Redacted.value(input().tokens.accessToken)))).toBe(
        true
      )
      // signed pulls (the simulator checks each signature), one per upload window
      const calls = sim.control.calls({ path: pullPath })
      const windows = garminUploadWindows(window, new Date(NOW))
      expect(
        calls.map((c) => [c.status, Number(c.params.uploadStartTimeInSeconds), Number(c.params.uploadEndTimeInSeconds)])
      )
        .toEqual(windows.map((w) => [200, w.start, w.end]))
      expect(windows.length).toBe(9)
    })))

  it.scopedLive("a 429 carries Retry-After; a 500 is status 500; a cut reply is malformed; a revoked token is access_revoked", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Garmin")
      const window = { from: "2025-06-12", to: "2025-06-12" }
      sim.control.injectFault({ path: pullPath, kind: "rateLimit", retryAfterSeconds: 90 })
      const limited = yield* Effect.flip(GarminData.fetchWindow(input(), window))
      expect(limited).toMatchObject({ _tag: "ProviderError", provider: "Garmin", status: 429, retryAfterSeconds: 90 })

      sim.control.injectFault({ path: pullPath, kind: "serverError" })
      expect(yield* Effect.flip(GarminData.fetchWindow(input(), window))).toMatchObject({ status: 500 })

      sim.control.injectFault({ path: pullPath, kind: "malformedJson" })
      const malformed = yield* Effect.flip(GarminData.fetchWindow(input(), window))
      expect(malformed.message).toContain("malformed response")

      sim.control.injectFault({ path: pullPath, kind: "expiredToken" })
      expect(yield* Effect.flip(GarminData.fetchWindow(input(), window))).toMatchObject({ status: 401 })

      // deregistered at Garmin: the token is refused with 403, read as a lost grant
      sim.control.revokeUser(input().providerUserId)
      const revoked = yield* Effect.flip(GarminData.fetchWindow(input(), window))
      expect(revoked).toMatchObject({ status: 403, code: "access_revoked" })
      expect(isAccessLost(revoked)).toBe(true)
    })))

  it.scopedLive("a summary type the user did not permit (412) is skipped with the reason, not retried", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Garmin", { granted: ["ACTIVITY_EXPORT"] })
      expect(input().tokens.scopes).toBe("ACTIVITY_EXPORT")
      const window = { from: "2025-06-12", to: "2025-06-12" }
      // The permissions are known: the Health API's types are not asked of Garmin; activities
      // (ACTIVITY_EXPORT) are.
      const known = yield* GarminData.fetchWindow(input(), window)
      expect(known.dailyActivity).toEqual([])
      expect(known.sleep).toEqual([])
      expect(known.quarantined.map((q) => [q.kind, q.reason])).toEqual([
        ["DailyActivity", expect.stringContaining("Garmin dailies skipped: the user has not granted HEALTH_EXPORT")],
        ["Sleep", expect.stringContaining("Garmin sleeps skipped: the user has not granted HEALTH_EXPORT")],
        ["Recovery", expect.stringContaining("Garmin hrv skipped")],
        ["Recovery", expect.stringContaining("Garmin pulseox skipped")],
        ["BodyMeasurement", expect.stringContaining("Garmin bodyComps skipped")]
      ])
      expect(new Set(sim.control.calls().map((c) => c.path))).toEqual(new Set(["/wellness-api/rest/activities"]))
      // Unknown permissions (a connection made before they were read): Garmin's 412 ends each type's read.
      sim.control.clearCalls()
      const unknown = input()
      const batch = yield* GarminData.fetchWindow({ ...unknown, tokens: { ...unknown.tokens, scopes: "" } }, window)
      expect(batch.dailyActivity).toEqual([])
      expect(batch.quarantined.map((q) => q.reason)).toEqual(Array(5).fill(expect.stringContaining("412")))
      expect(sim.control.calls({ path: pullPath, status: 412 })).toHaveLength(1)
      expect(sim.control.calls({ status: 412 })).toHaveLength(5)
      expect(sim.control.calls({ path: "/wellness-api/rest/activities", status: 412 })).toHaveLength(0)
    })))
})

describe("GarminData against the simulator (OAuth 2.0)", () => {
  const oauth2 = (options: { readonly granted?: ReadonlyArray<string> } = {}) =>
    connect("Garmin", { adapter: GarminOAuth2Adapter, ...options })

  it.scopedLive("connects with PKCE, reads the permissions as scopes, and identifies the user with the bearer token", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, tokens } = yield* oauth2()
      expect(tokens.tokenSecret).toBeNull()
      expect(tokens.refreshToken).not.toBeNull()
      expect(tokens.expiresAt!.getTime() - Date.now()).toBeGreaterThan(86_000_000)
      expect(tokens.scopes.split(" ")).toContain("HISTORICAL_DATA_EXPORT")
      expect(providerUserId).toMatch(/^[0-9a-f]{32}$/)
      // refresh rotates; the spent refresh token is refused after
      const refreshed = yield* GarminOAuth2Adapter.refresh(input())
      expect(Redacted.value(refreshed.refreshToken!)).not.toBe(Redacted.value(tokens.refreshToken!))
      expect(refreshed.scopes).toBe(tokens.scopes)
      const spent = yield* Effect.flip(GarminOAuth2Adapter.refresh(input()))
      expect(spent).toMatchObject({ status: 400, code: "invalid_grant" })
    })))

  it.scopedLive("a window is a backfill request (202, at most 90 days); the data arrives by push without access tokens", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* oauth2()
      const window = { from: "2025-06-08", to: "2025-06-14" }
      const batch = yield* GarminData.fetchWindow(input(), window)
      expect(batch.dailyActivity).toEqual([])
      expect(batch.quarantined).toEqual([])
      expect(sim.control.calls({ path: pullPath })).toHaveLength(0)
      const [request] = sim.control.calls({ path: "/wellness-api/rest/backfill/dailies" })
      expect(request).toMatchObject({ status: 202 })
      const range = garminBackfillRanges(window, new Date(NOW))
      expect(range).toEqual([{
        start: Date.parse("2025-06-07T10:00:00Z") / 1000,
        end: Date.parse("2025-06-14T12:00:00Z") / 1000 + 1
      }])
      expect(Number(request!.params.summaryStartTimeInSeconds)).toBe(range[0]!.start)
      // a window reaching today ends at today's UTC midnight: today's uploads come by push or ping
      expect(garminBackfillRanges({ from: "2025-06-13", to: "2025-06-15" }, new Date(NOW))).toEqual([{
        start: Date.parse("2025-06-12T10:00:00Z") / 1000,
        end: Date.parse("2025-06-15T00:00:00Z") / 1000
      }])
      // today alone: only the part of it that began before UTC midnight (users east of UTC)
      expect(garminBackfillRanges({ from: "2025-06-15", to: "2025-06-15" }, new Date(NOW))).toEqual([{
        start: Date.parse("2025-06-14T10:00:00Z") / 1000,
        end: Date.parse("2025-06-15T00:00:00Z") / 1000
      }])
      expect(garminBackfillRanges({ from: "2025-06-16", to: "2025-06-16" }, new Date(NOW))).toEqual([])
      // more than 90 days: several requests, none longer
      const long = garminBackfillRanges({ from: "2025-01-01", to: "2025-06-14" }, new Date(NOW))
      expect(long.length).toBe(2)
      expect(long.every((r) => r.end - r.start <= 90 * 86_400)).toBe(true)
      expect(long[1]!.start).toBe(long[0]!.end)
      // asking again for the same range is a duplicate (409), which is fine
      yield* GarminData.fetchWindow(input(), window)
      expect(sim.control.calls({ path: "/wellness-api/rest/backfill/dailies", status: 409 })).toHaveLength(1)

      const hook = yield* receiver
      const [delivery] = yield* sim.control.deliverBackfills(hook.url)
      expect(delivery!.status).toBe(200)
      expect(JSON.stringify(hook.bodies[0])).not.toContain("userAccessToken")
      const received = garminWebhooks(
        post(JSON.stringify(hook.bodies[0]), { "garmin-client-id": simClient.clientId }),
        {
          ...app,
          clientId: simClient.clientId
        },
        0
      )
      if (received._tag !== "Accepted") throw new Error("expected an accepted delivery")
      const outcome = yield* GarminData.notify(input(), received.notifications[0]!.notification)
      if (outcome._tag !== "Store") throw new Error("expected records to store")
      const days = outcome.batch.dailyActivity.map((r) => r.date).sort()
      for (const record of outcome.batch.dailyActivity) {
        expect(record).toEqual(expected(garminDaily(seed, providerUserId, record.date, 1), providerUserId))
      }
      expect(days).toEqual(expect.arrayContaining([
        "2025-06-08",
        "2025-06-09",
        "2025-06-10",
        "2025-06-11",
        "2025-06-12",
        "2025-06-13",
        "2025-06-14"
      ]))
    })))

  it.scopedLive("backfill needs HISTORICAL_DATA_EXPORT: skipped with the reason when known, Garmin's 412 otherwise", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* oauth2({ granted: ["HEALTH_EXPORT", "ACTIVITY_EXPORT"] })
      const window = { from: "2025-06-12", to: "2025-06-12" }
      const known = yield* GarminData.fetchWindow(input(), window)
      // one note per summary type, each under its own kind
      expect(known.quarantined.map((q) => q.reason)).toEqual(
        Array(6).fill(expect.stringContaining("HISTORICAL_DATA_EXPORT"))
      )
      expect(known.quarantined.map((q) => q.kind)).toEqual([
        "DailyActivity",
        "Sleep",
        "Workout",
        "Recovery",
        "Recovery",
        "BodyMeasurement"
      ])
      expect(sim.control.calls()).toHaveLength(0)
      const unknown = input()
      const refused = yield* GarminData.fetchWindow({ ...unknown, tokens: { ...unknown.tokens, scopes: "" } }, window)
      expect(refused.quarantined.map((q) => q.reason)).toEqual(Array(6).fill(expect.stringContaining("412")))
      expect(sim.control.calls({ path: "/wellness-api/rest/backfill/dailies", status: 412 })).toHaveLength(1)
      expect(sim.control.calls({ path: "/wellness-api/rest/backfill/pulseOx", status: 412 })).toHaveLength(1)
      expect(sim.control.calls()).toHaveLength(6)
    })))

  it.scopedLive("a pull without a ping's token is refused; a ping's callbackURL with token= is pulled as it is", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* oauth2()
      const start = Date.parse("2025-06-12T12:00:00Z") / 1000
      const window = `uploadStartTimeInSeconds=${start}&uploadEndTimeInSeconds=${start + 86_400}`
      const unsolicited = yield* Effect.flip(
        pullGarminCallback(input(), `https://apis.garmin.com${pullPath}?${window}`)
      )
      expect(unsolicited).toMatchObject({ status: 400 })
      expect(unsolicited.message).toContain("InvalidPullTokenException")

      const hook = yield* receiver
      yield* sim.control.pingDailies(hook.url, {
        userId: providerUserId,
        uploadStartTimeInSeconds: start,
        uploadEndTimeInSeconds: start + 86_400
      })
      expect(JSON.stringify(hook.bodies[0])).not.toContain("userAccessToken")
      const [ping] = garminPingCallbacks(hook.bodies[0])
      expect(new URL(ping!.callbackUrl).searchParams.get("token")).toMatch(/.{16,}/)
      const batch = yield* pullGarminCallback(input(), ping!.callbackUrl)
      expect(batch.dailyActivity.length).toBeGreaterThan(0)
      expect(batch.dailyActivity.every((r) => r.providerRecordId.startsWith(`${providerUserId}:`))).toBe(true)
      const [pulled] = sim.control.calls({ path: pullPath, status: 200 })
      expect(pulled!.params.token).toBeDefined()
    })))

  it.scopedLive("a permission change becomes the connection's scopes; what was withdrawn is no longer read", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* oauth2()
      const hook = yield* receiver
      const delivery = yield* sim.control.changePermissions(hook.url, {
        userId: providerUserId,
        permissions: ["ACTIVITY_EXPORT", "WORKOUT_IMPORT"]
      })
      expect(delivery?.status).toBe(200)
      const received = garminWebhooks(
        post(JSON.stringify(hook.bodies[0]), { "garmin-client-id": simClient.clientId }),
        {
          ...app,
          clientId: simClient.clientId
        },
        0
      )
      if (received._tag !== "Accepted") throw new Error("expected an accepted delivery")
      expect(received.notifications.map((n) => n.providerUserId)).toEqual([providerUserId])
      const outcome = yield* GarminData.notify(input(), received.notifications[0]!.notification)
      expect(outcome).toEqual({ _tag: "Scopes", scopes: "ACTIVITY_EXPORT WORKOUT_IMPORT" })
      const narrowed = { ...input(), tokens: { ...input().tokens, scopes: "ACTIVITY_EXPORT WORKOUT_IMPORT" } }
      sim.control.clearCalls()
      const batch = yield* GarminData.fetchWindow(narrowed, { from: "2025-06-12", to: "2025-06-12" })
      expect(batch.dailyActivity).toEqual([])
      expect(batch.quarantined.map((q) => q.reason)).toEqual([
        expect.stringContaining("HEALTH_EXPORT"),
        expect.stringContaining("HEALTH_EXPORT"),
        // activities are still permitted, but their backfill needs HISTORICAL_DATA_EXPORT
        expect.stringContaining("HISTORICAL_DATA_EXPORT"),
        expect.stringContaining("HEALTH_EXPORT"),
        expect.stringContaining("HEALTH_EXPORT"),
        expect.stringContaining("HEALTH_EXPORT")
      ])
      expect(sim.control.calls()).toHaveLength(0)
      // pushed summaries of a withdrawn type are not stored either; activities still are
      const pushed = yield* GarminData.notify(narrowed, {
        _tag: "GarminPush",
        summariesJson: JSON.stringify({
          dailies: [{ userId: providerUserId, summaryId: "s", calendarDate: "2025-06-12" }],
          sleeps: [{
            userId: providerUserId,
            summaryId: "n",
            startTimeInSeconds: 1749686400,
            durationInSeconds: 28800
          }],
          activities: [{
            userId: providerUserId,
            summaryId: "a",
            startTimeInSeconds: 1749711600,
            durationInSeconds: 1800
          }]
        })
      })
      if (pushed._tag !== "Store") throw new Error("expected records to store")
      expect(pushed.batch.dailyActivity).toEqual([])
      expect(pushed.batch.sleep).toEqual([])
      expect(pushed.batch.workouts.map((w) => w.providerRecordId)).toEqual(["a"])
      expect(pushed.batch.quarantined.map((q) => q.kind)).toEqual(["DailyActivity", "Sleep"])
    })))

  it.scopedLive("a revoked user's bearer token gets 403, read as access_revoked", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* oauth2()
      sim.control.revokeUser(input().providerUserId)
      const error = yield* Effect.flip(GarminData.fetchWindow(input(), { from: "2025-06-12", to: "2025-06-12" }))
      expect(error).toMatchObject({ status: 403, code: "access_revoked" })
      expect(isAccessLost(error)).toBe(true)
    })))
})

describe("Garmin push and ping against the simulator (OAuth 1.0a)", () => {
  it.scopedLive("a push delivery normalises to the simulator's dailies, by user, without the access token", () =>
    withHttp(Effect.gen(function*() {
      const { providerUserId, seed, sim } = yield* connect("Garmin")
      const hook = yield* receiver
      const dates = ["2025-06-10", "2025-06-11"]
      const delivery = yield* sim.control.pushDailies(hook.url, { userId: providerUserId, dates })
      expect(delivery?.status).toBe(200)
      const { quarantined, records } = normaliseGarminDailies(
        garminPushDailies(hook.bodies[0], providerUserId),
        providerUserId
      )
      expect(quarantined).toEqual([])
      expect(records).toEqual(dates.map((date) => expected(garminDaily(seed, providerUserId, date, 1), providerUserId)))
      expect(JSON.stringify(hook.bodies[0])).toContain("userAccessToken")
      expect(records.every((r) => !r.rawJson.includes("userAccessToken"))).toBe(true)
    })))

  it.scopedLive("a ping's callback is pulled signed, at the configured API base only", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Garmin")
      const hook = yield* receiver
      const start = Date.parse("2025-06-12T12:00:00Z") / 1000
      yield* sim.control.pingDailies(hook.url, {
        userId: providerUserId,
        uploadStartTimeInSeconds: start,
        uploadEndTimeInSeconds: start + 86_400
      })
      const [ping] = garminPingCallbacks(hook.bodies[0])
      expect(ping!.userId).toBe(providerUserId)
      const batch = yield* pullGarminCallback(input(), ping!.callbackUrl)
      expect(batch.dailyActivity.length).toBeGreaterThan(0)
      for (const record of batch.dailyActivity) {
        // each is some upload of its day: one of the simulator's versions of it
        const versions = [0.25, 0.5, 0.75, 1].map((p) =>
          expected(garminDaily(seed, providerUserId, record.date, p), providerUserId)
        )
        expect(versions).toContainEqual(record)
      }
      const [call] = sim.control.calls({ path: pullPath })
      expect(call).toMatchObject({
        status: 200,
        params: { uploadStartTimeInSeconds: String(start), uploadEndTimeInSeconds: String(start + 86_400) }
      })

      // another host in the callback: the request still goes to the configured API base
      const forged = `https://elsewhere.example.test${pullPath}${new URL(ping!.callbackUrl).search}`
      const again = yield* pullGarminCallback(input(), forged)
      expect(again).toEqual(batch)
      expect(sim.control.calls({ path: pullPath })).toHaveLength(2)

      const refused = yield* Effect.flip(
        pullGarminCallback(input(), "https://apis.garmin.com/wellness-api/rest/epochs?x=1")
      )
      expect(refused.message).toContain("not a summary pull")
      expect(sim.control.calls({ path: pullPath })).toHaveLength(2)
    })))
})

describe("Garmin sleeps, activities, HRV, pulse ox and body compositions against the simulator", () => {
  const window = { from: "2025-06-08", to: "2025-06-14" }
  const dates = ["2025-06-08", "2025-06-09", "2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13", "2025-06-14"]
  const inWindow = <R extends { readonly date?: string | undefined }>(records: ReadonlyArray<R>) =>
    records.filter((r) => r.date !== undefined && r.date >= window.from && r.date <= window.to)

  it.scopedLive("OAuth 1.0a: each type is pulled by upload window and normalised as the simulator's summaries", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connect("Garmin")
      const batch = yield* GarminData.fetchWindow(input(), window)
      expect(batch.quarantined).toEqual([])
      const windows = garminUploadWindows(window, new Date(NOW))
      for (const path of ["sleeps", "activities", "hrv", "pulseOx", "bodyComps"]) {
        expect(sim.control.calls({ path: `/wellness-api/rest/${path}`, status: 200 })).toHaveLength(windows.length)
      }
      const summaries = (type: Parameters<typeof sim.control.summaries>[1]) =>
        sim.control.summaries(providerUserId, type, dates).map((summary) => ({ userId: providerUserId, ...summary }))
      // a night's sleep for every morning of the window, dated by its wake day
      const nights = inWindow(batch.sleep).filter((r) => !r.nap)
      expect(nights.map((r) => r.date).sort()).toEqual(dates)
      const expectedNights = garminSummaries.sleeps.read(summaries("sleeps"), providerUserId).sleep.filter((r) =>
        !r.nap
      )
      expect(nights).toEqual(expect.arrayContaining(expectedNights))
      // activities: the days' workouts, by Garmin's summaryId
      const expectedWorkouts = garminSummaries.activities.read(summaries("activities"), providerUserId).workouts
      expect(expectedWorkouts.length).toBeGreaterThanOrEqual(4)
      expect(inWindow(batch.workouts)).toEqual(expect.arrayContaining([...expectedWorkouts]))
      expect(new Set(inWindow(batch.workouts).map((w) => w.providerRecordId))).toEqual(
        new Set(expectedWorkouts.map((w) => w.providerRecordId))
      )
      // one recovery per day: the night's HRV, the day's SpO2 and the dailies' resting heart rate
      const recoveries = inWindow(batch.recovery)
      expect(recoveries.map((r) => r.date).sort()).toEqual(dates)
      for (const recovery of recoveries) {
        const hrv = sim.control.summaries(providerUserId, "hrv", [recovery.date])[0]!
        const daily = sim.control.dailies(providerUserId, [recovery.date])[0]!
        expect(recovery).toMatchObject({
          providerRecordId: `recovery:${recovery.date}`,
          partial: true,
          hrvRmssdMs: hrv["lastNightAvg"],
          restingHeartRate: daily["restingHeartRateInBeatsPerMinute"]
        })
        expect(recovery.spo2Percent).toBeGreaterThan(80)
        expect(Object.keys(JSON.parse(recovery.rawJson))).toEqual(expect.arrayContaining(["dailies", "hrv", "pulseox"]))
      }
      // a weigh-in at least once a week, in kilograms
      const expectedBodies = garminSummaries.bodyComps.read(summaries("bodyComps"), providerUserId).bodyMeasurements
      expect(expectedBodies.length).toBeGreaterThanOrEqual(1)
      expect(inWindow(batch.bodyMeasurements)).toEqual(expect.arrayContaining([...expectedBodies]))
      for (const body of batch.bodyMeasurements) expect(body.weightKilograms).toBeLessThan(150)
      for (const record of [...batch.sleep, ...batch.workouts, ...batch.recovery, ...batch.bodyMeasurements]) {
        expect(record.rawJson).not.toContain("userAccessToken")
      }
    })))

  it.scopedLive("OAuth 2.0: a backfill request per type (activities at most 30 days); what is delivered is stored", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connect("Garmin", { adapter: GarminOAuth2Adapter })
      const batch = yield* GarminData.fetchWindow(input(), window)
      expect(batch).toEqual(emptyBatch)
      for (const path of ["dailies", "sleeps", "activities", "hrv", "pulseOx", "bodyComps"]) {
        expect(sim.control.calls({ path: `/wellness-api/rest/backfill/${path}`, status: 202 })).toHaveLength(1)
      }
      expect(sim.control.pendingBackfills().map((b) => b.summaryType).sort()).toEqual(
        ["activities", "bodyComps", "dailies", "hrv", "pulseox", "sleeps"]
      )
      // a long window: the activities' requests are cut at 30 days, the others' at 90
      const long = { from: "2025-01-01", to: "2025-06-14" }
      expect(garminBackfillRanges(long, new Date(NOW), garminSummaries.activities.maxBackfillSeconds).length).toBe(6)
      expect(garminBackfillRanges(long, new Date(NOW), garminSummaries.sleeps.maxBackfillSeconds).length).toBe(2)

      const hook = yield* receiver
      const deliveries = yield* sim.control.deliverBackfills(hook.url)
      expect(deliveries.map((d) => d.status)).toEqual(Array(6).fill(200))
      const stored: Array<CanonicalBatch> = []
      for (const body of hook.bodies) {
        expect(JSON.stringify(body)).not.toContain("userAccessToken")
        const received = garminWebhooks(
          post(JSON.stringify(body), { "garmin-client-id": simClient.clientId }),
          { ...app, clientId: simClient.clientId },
          0
        )
        if (received._tag !== "Accepted") throw new Error("expected an accepted delivery")
        for (const { notification } of received.notifications) {
          const outcome = yield* GarminData.notify(input(), notification)
          if (outcome._tag !== "Store") throw new Error("expected records to store")
          stored.push(outcome.batch)
        }
      }
      const all = {
        sleep: stored.flatMap((b) => b.sleep),
        workouts: stored.flatMap((b) => b.workouts),
        recovery: stored.flatMap((b) => b.recovery),
        bodyMeasurements: stored.flatMap((b) => b.bodyMeasurements),
        quarantined: stored.flatMap((b) => b.quarantined)
      }
      expect(all.quarantined).toEqual([])
      expect(new Set(inWindow(all.sleep).filter((r) => !r.nap).map((r) => r.date))).toEqual(new Set(dates))
      expect(inWindow(all.workouts).length).toBeGreaterThanOrEqual(4)
      expect(new Set(inWindow(all.recovery).filter((r) => r.hrvRmssdMs !== null).map((r) => r.date))).toEqual(
        new Set(dates)
      )
      expect(inWindow(all.bodyMeasurements).length).toBeGreaterThanOrEqual(1)
      expect(all.workouts.every((w) => w.providerRecordId.length > 0)).toBe(true)
      expect(providerUserId).toMatch(/^[0-9a-f]{32}$/)
    })))

  it.scopedLive("OAuth 2.0: a sleeps ping's callbackURL is pulled as it is; its pull token serves sleeps only", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connect("Garmin", { adapter: GarminOAuth2Adapter })
      const hook = yield* receiver
      const start = Date.parse("2025-06-12T00:00:00Z") / 1000
      yield* sim.control.pingSummaries(hook.url, {
        userId: providerUserId,
        summaryType: "sleeps",
        uploadStartTimeInSeconds: start,
        uploadEndTimeInSeconds: start + 86_400
      })
      const [ping] = garminPingCallbacks(hook.bodies[0])
      expect(new URL(ping!.callbackUrl).pathname).toBe("/wellness-api/rest/sleeps")
      const batch = yield* pullGarminCallback(input(), ping!.callbackUrl)
      expect(batch.sleep.filter((r) => !r.nap).map((r) => r.date)).toEqual(["2025-06-12"])
      // the same token on another type's path is refused
      const elsewhere = ping!.callbackUrl.replace("/sleeps?", "/dailies?")
      const refused = yield* Effect.flip(pullGarminCallback(input(), elsewhere))
      expect(refused.message).toContain("InvalidPullTokenException")
    })))
})
