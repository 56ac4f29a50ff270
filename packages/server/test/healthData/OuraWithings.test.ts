/**
 * Oura and Withings end to end: one sandbox user connects both through the hosted flow, and after the backfill every
 * day of activity, sleep, workout, recovery and body measurement the simulators serve for the backfilled month is
 * read back through the API, field by field, converted as the normalisers document (seconds to minutes, Withings'
 * `value * 10^unit`, its sleep efficiency ratio to a percentage). The simulators' answers are read over HTTP with the
 * connection's own stored token, as the server reads them. Then the two things only the whole server shows: a
 * Withings refresh under concurrent syncs presents each single-use refresh token once (the simulator's call log
 * says what was presented), and webhooks come in through the server's own routes: Oura's challenge, Withings' HEAD
 * check, the subscriptions both simulators hold after the backfill, and a notification that makes the server read
 * the changed data again.
 *
 * It is end to end because each of these crosses the wire between two servers: the plug-ins' paging, dates and
 * units against the simulators' pages, the token rotation against the row lock and the sync queue, and the
 * subscriptions against the callback the server answers.
 */
import { HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import type { ConnectionId, UserId } from "@pulsebridge/domain"
import { ouraSignatureOf, ouraVerificationToken } from "@pulsebridge/providers"
import { tokenFingerprint } from "@pulsebridge/sandbox"
import { makeOuraData } from "@pulsebridge/sandbox/oura/Data"
import { ouraUserId } from "@pulsebridge/sandbox/oura/Shapes"
import { makeWithingsData } from "@pulsebridge/sandbox/withings/Data"
import { withingsUserId } from "@pulsebridge/sandbox/withings/Shapes"
import { apiClient, createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { ProviderAccess } from "../../src/connections/ProviderAccess.js"
import { sandboxSeed } from "../../src/sandbox/SandboxRoutes.js"
import { connect, listConnections, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { execute, json, preview, send } from "../fixtures/Http.js"
import { eventually, pollUntil } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const DAY = 86_400_000
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const addDays = (date: string, days: number) => dateOf(Date.parse(`${date}T00:00:00Z`) + days * DAY)
const minutes = (seconds: number | null | undefined) => seconds === null || seconds === undefined ? null : seconds / 60

/**
 * The backfill reads the 30 days up to today. Days compared are those of it that are over everywhere (the
 * simulated users live from UTC-10 to UTC+9) and whose documents were all out before the sync: a night, nap or
 * workout of yesterday may appear at the simulator after the sync read it, and today's activity grows.
 */
const today = dateOf(Date.now())
const backfill = { from: addDays(today, -29), to: today }
const compared = { from: backfill.from, to: addDays(today, -2) }
const inCompared = (date: string) => date >= compared.from && date <= compared.to

/**
 * The simulated users: ones whose compared days hold enough workouts for the comparison of workouts to mean something,
 * more than 10 at Oura and more than 5 at Withings. The simulators train at random for each user (from their seed,
 * the user and the day): a month holds about 18 workouts at Oura and 13 at Withings, but a random user's may hold
 * far fewer (a Withings month held 5 once). Their own data functions, which they serve from, pick users that hold
 * enough, on any date.
 */
const userWithWorkouts = (
  label: string,
  workouts: (name: string, from: number, to: number) => number,
  over: number
) => {
  const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY
  for (;;) {
    const name = simulatedUser(label)
    if (workouts(name, day(compared.from), day(compared.to)) > over) return name
  }
}
const ouraData = makeOuraData(sandboxSeed)
const ouraLogin = userWithWorkouts("oura-e2e", (name, from, to) => {
  let count = 0
  for (let day = from; day <= to; day++) count += ouraData.docsOf(ouraUserId(name), "workout", day, Date.now()).length
  return count
}, 10)
const withingsData = makeWithingsData(sandboxSeed)
const withingsLogin = userWithWorkouts(
  "withings-e2e",
  (name, from, to) => withingsData.byDate("workouts", withingsUserId(name), from, to, Date.now()).length,
  5
)

interface Connected {
  readonly userId: UserId
  readonly token: string
  readonly appId: string
  readonly oura: { readonly connectionId: ConnectionId; readonly providerUserId: string }
  readonly withings: { readonly connectionId: ConnectionId; readonly providerUserId: string }
}

/** One user with both providers, connected and backfilled once for the whole file. */
class Users extends Context.Tag("OuraWithings/Users")<Users, Connected>() {}

const UsersLive = Layer.effect(
  Users,
  Effect.gen(function*() {
    const { app, token, user } = yield* createUser(`oura-withings-${simulatedUser("u")}`)
    const oura = yield* connect(user.id, token, "Oura", ouraLogin)
    const withings = yield* connect(user.id, token, "Withings", withingsLogin)
    yield* waitForSync(user.id, token, oura.connectionId)
    yield* waitForSync(user.id, token, withings.connectionId)
    // The subscriptions are made once the backfill is stored, after the connection shows it synced: wait for the
    // attempts to end (14 at Oura unless one is refused, which ends them; 4 at Withings), whatever they answered.
    const settled = { every: "100 millis", within: "15 seconds" } as const
    yield* pollUntil(
      simCalls("Oura", { method: "POST", path: "/v2/webhook/subscription" }),
      (calls) => calls.length >= 14 || calls.some((c) => c.status >= 400),
      settled
    )
    yield* pollUntil(
      Effect.map(
        simCalls("Withings", { path: "/notify" }),
        (calls) => calls.filter((c) => c.params["action"] === "subscribe")
      ),
      (calls) => calls.length >= 4,
      settled
    )
    const listed = yield* listConnections(user.id, token)
    const providerUserId = (id: string) => listed.find((c) => c.id === id)!.providerUserId as string
    return {
      userId: user.id,
      token,
      appId: app.id,
      oura: { connectionId: oura.connectionId as ConnectionId, providerUserId: providerUserId(oura.connectionId) },
      withings: {
        connectionId: withings.connectionId as ConnectionId,
        providerUserId: providerUserId(withings.connectionId)
      }
    }
  })
)

const bearerOf = (connectionId: string) =>
  Effect.map(
    Effect.flatMap(ConnectionTokens, (tokens) => tokens.stored(connectionId)),
    (stored) => Redacted.value(stored.accessToken)
  )

// ---- Oura: the simulator's collections, read as the plug-in reads them ----

/** Every document of an Oura collection whose `day` is in `from`..`to`, following `next_token` to the last page. */
const ouraDocuments = (connectionId: string, collection: string, from: string, to: string) =>
  Effect.gen(function*() {
    const bearer = yield* bearerOf(connectionId)
    const out: Array<any> = []
    let next: string | undefined
    do {
      // `end_date` is exclusive for some collections and `workout` filters on the UTC day of the start: two days
      // either side hold every document of the local days
      const query = new URLSearchParams({
        start_date: addDays(from, -2),
        end_date: addDays(to, 2),
        ...(next === undefined ? {} : { next_token: next })
      })
      const reply = yield* send("GET", `/sandbox/oura/v2/usercollection/${collection}?${query}`, { bearer })
      expect(reply.status, preview(reply)).toBe(200)
      const page = json(reply)
      out.push(...page.data)
      next = page.next_token ?? undefined
    } while (next !== undefined)
    return out.filter((doc) => doc.day >= from && doc.day <= to)
  })

/** Minutes east of UTC written at the end of an ISO date-time (Oura writes every instant with its offset). */
const offsetOfIso = (text: string): number => {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(text)
  if (m === null) return 0
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))
}

// ---- Withings: form POSTs answered `{status, body}`, paged by `more`/`offset` ----

const withingsCall = (connectionId: string, path: string, form: Record<string, string>) =>
  Effect.gen(function*() {
    const reply = yield* send("POST", `/sandbox/withings${path}`, {
      bearer: yield* bearerOf(connectionId),
      body: new URLSearchParams(form).toString(),
      contentType: "application/x-www-form-urlencoded"
    })
    expect(reply.status, preview(reply)).toBe(200)
    const answer = JSON.parse(reply.text)
    expect(answer.status, reply.text).toBe(0)
    return answer.body
  })

/** Every item under `key` of a Withings list, page after page. */
const withingsList = (connectionId: string, path: string, form: Record<string, string>, key: string) =>
  Effect.gen(function*() {
    const out: Array<any> = []
    let timezone: string | undefined
    let offset: string | undefined
    do {
      const body = yield* withingsCall(connectionId, path, offset === undefined ? form : { ...form, offset })
      out.push(...body[key])
      timezone = body.timezone ?? timezone
      offset = body.more === true || body.more === 1 ? String(body.offset) : undefined
    } while (offset !== undefined)
    return { items: out, timezone }
  })

/** The local date, in an IANA zone, of Unix seconds. */
const localDateIn = (zone: string, seconds: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" })
    .format(new Date(seconds * 1000))

/** Minutes east of UTC of an IANA zone at Unix seconds. */
const offsetIn = (zone: string, seconds: number) => {
  const local = localDateIn(zone, seconds)
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  })
    .format(new Date(seconds * 1000)).split(":").map(Number)
  const wall = Date.parse(`${local}T00:00:00Z`) + (parts[0]! * 60 + parts[1]!) * 60_000
  return Math.round((wall - Math.floor(seconds / 60) * 60_000) / 60_000)
}

/** `value * 10^unit`, as Withings documents its measures. */
const measureValue = (group: any, type: number): number | null => {
  const measure = group.measures.find((m: any) => m.type === type)
  return measure === undefined ? null : measure.value * 10 ** measure.unit
}

/** The workout categories the simulator uses, named as in Withings' reference, with their canonical types. */
const withingsCategories: Record<number, readonly [string, string]> = {
  1: ["Walk", "walking"],
  2: ["Run", "running"],
  6: ["Bicycling", "cycling"],
  7: ["Swimming", "swimming"],
  16: ["Lift weights", "strength"],
  28: ["Yoga", "yoga"],
  187: ["Rowing", "rowing"],
  308: ["Indoor cycling", "cycling"]
}

const connectionOf = (connected: Connected, connectionId: string) =>
  Effect.map(listConnections(connected.userId, connected.token), (list) => list.find((c) => c.id === connectionId))

// No periodic sync: the simulators' records and the stored ones must be the same set while the test reads both.
layer(
  UsersLive.pipe(Layer.provideMerge(makeTestServer({ sandbox: true, syncCron: "0 0 1 1 *" }))),
  { timeout: "300 seconds", excludeTestServices: true }
)("Oura and Withings", (it) => {
  it.effect("an Oura user's month of activity, sleep, workouts, recovery and body reads as the simulator served it", () =>
    Effect.gen(function*() {
      const connected = yield* Users
      const { connectionId } = connected.oura
      const client = yield* apiClient(connected.token)
      const path = { userId: connected.userId }
      const urlParams = { from: backfill.from, to: backfill.to, provider: "Oura" }
      const ours = <R extends { readonly connectionId: string; readonly date: string }>(list: ReadonlyArray<R>) =>
        list.filter((r) => r.connectionId === connectionId && inCompared(r.date))

      // Daily activity: seconds of activity as minutes; no floors.
      const activity = ours(yield* client.connections.activity({ path, urlParams }))
      const simActivity = yield* ouraDocuments(connectionId, "daily_activity", compared.from, compared.to)
      expect(simActivity.length).toBe(28)
      expect(activity.map((a) => a.date)).toEqual(simActivity.map((d) => d.day))
      for (const doc of simActivity) {
        const served = activity.find((a) => a.date === doc.day)
        expect(served, `activity of ${doc.day}`).toMatchObject({
          provider: "Oura",
          steps: doc.steps,
          caloriesOut: doc.total_calories,
          distanceMeters: doc.equivalent_walking_distance,
          lightActiveMinutes: doc.low_activity_time / 60,
          moderateActiveMinutes: doc.medium_activity_time / 60,
          vigorousActiveMinutes: doc.high_activity_time / 60,
          sedentaryMinutes: doc.sedentary_time / 60,
          floorsClimbed: 0
        })
      }

      // Sleep: every period, the main one scored with the day's `daily_sleep` score, dated by Oura's `day`.
      const sleeps = ours(yield* client.healthRecords.sleep({ path, urlParams }))
      const simSleeps = yield* ouraDocuments(connectionId, "sleep", compared.from, compared.to)
      const dailySleeps = yield* ouraDocuments(connectionId, "daily_sleep", compared.from, compared.to)
      expect(simSleeps.filter((s) => s.type === "long_sleep").length).toBe(28)
      expect(sleeps.length).toBe(simSleeps.length)
      for (const doc of simSleeps) {
        const served = sleeps.find((s) => s.providerRecordId === doc.id)
        const main = doc.type === "long_sleep"
        const score = main ? dailySleeps.find((d) => d.day === doc.day)?.score ?? null : null
        expect(served, `sleep ${doc.id}`).toMatchObject({
          date: doc.day,
          startUtc: new Date(doc.bedtime_start),
          endUtc: new Date(doc.bedtime_end),
          utcOffsetMinutes: offsetOfIso(doc.bedtime_end),
          isNap: !main,
          inBedMinutes: doc.time_in_bed / 60,
          asleepMinutes: doc.total_sleep_duration / 60,
          awakeMinutes: doc.awake_time / 60,
          lightMinutes: doc.light_sleep_duration / 60,
          deepMinutes: doc.deep_sleep_duration / 60,
          remMinutes: doc.rem_sleep_duration / 60,
          efficiencyPercent: doc.efficiency,
          latencyMinutes: doc.latency / 60,
          averageHeartRate: doc.average_heart_rate,
          lowestHeartRate: doc.lowest_heart_rate,
          hrvRmssdMs: doc.average_hrv,
          respiratoryRate: doc.average_breath,
          spo2Percent: null,
          providerScore: score,
          providerScoreScale: score === null ? null : "OuraScore0To100"
        })
      }

      // Workouts: Oura's activity name kept, calories and metres as given, no heart rate.
      const workouts = ours(yield* client.healthRecords.workouts({ path, urlParams }))
      const simWorkouts = yield* ouraDocuments(connectionId, "workout", compared.from, compared.to)
      // The user was chosen for its workouts (`userWithWorkouts`).
      expect(simWorkouts.length).toBeGreaterThan(10)
      expect(workouts.length).toBe(simWorkouts.length)
      for (const doc of simWorkouts) {
        const served = workouts.find((w) => w.providerRecordId === doc.id)
        expect(served, `workout ${doc.id}`).toMatchObject({
          date: doc.day,
          startUtc: new Date(doc.start_datetime),
          endUtc: new Date(doc.end_datetime),
          utcOffsetMinutes: offsetOfIso(doc.start_datetime),
          providerActivityName: doc.activity,
          durationMinutes: (Date.parse(doc.end_datetime) - Date.parse(doc.start_datetime)) / 60_000,
          activeEnergyKilocalories: doc.calories,
          distanceMeters: doc.distance,
          steps: null,
          averageHeartRate: null,
          maxHeartRate: null,
          loadScore: null
        })
        expect(served!.activityType).toBe(
          doc.activity === "strengthTraining" ? "strength" : doc.activity
        )
      }

      // Recovery: readiness, the nightly SpO2 and the main sleep's vitals, one record a day.
      const recoveries = ours(yield* client.healthRecords.recovery({ path, urlParams }))
      const readiness = yield* ouraDocuments(connectionId, "daily_readiness", compared.from, compared.to)
      const spo2 = yield* ouraDocuments(connectionId, "daily_spo2", compared.from, compared.to)
      expect(readiness.length).toBe(28)
      expect(recoveries.length).toBe(28)
      for (const doc of readiness) {
        const night = simSleeps.find((s) => s.day === doc.day && s.type === "long_sleep")!
        const oxygen = spo2.find((s) => s.day === doc.day)
        expect(recoveries.find((r) => r.date === doc.day), `recovery of ${doc.day}`).toMatchObject({
          providerScore: doc.score,
          providerScoreScale: "OuraScore0To100",
          skinTemperatureDeviationCelsius: doc.temperature_deviation,
          skinTemperatureCelsius: null,
          spo2Percent: oxygen?.spo2_percentage?.average ?? null,
          restingHeartRate: night.lowest_heart_rate,
          hrvRmssdMs: night.average_hrv,
          respiratoryRate: night.average_breath
        })
      }

      // Body: height and weight from `personal_info`, filed under the day it was read.
      const bodies = (yield* client.healthRecords.body({ path, urlParams })).filter((b) =>
        b.connectionId === connectionId
      )
      const info = json(
        yield* send("GET", "/sandbox/oura/v2/usercollection/personal_info", { bearer: yield* bearerOf(connectionId) })
      )
      expect(bodies.length).toBeGreaterThan(0)
      expect(bodies.at(-1)).toMatchObject({
        weightKilograms: info.weight,
        heightMeters: info.height,
        bodyFatPercent: null,
        bmi: null,
        leanMassKilograms: null
      })
    }))

  it.effect("a Withings user's month of activity, sleep, workouts and weighings reads as the simulator served it", () =>
    Effect.gen(function*() {
      const connected = yield* Users
      const { connectionId } = connected.withings
      const client = yield* apiClient(connected.token)
      const path = { userId: connected.userId }
      const urlParams = { from: backfill.from, to: backfill.to, provider: "Withings" }
      const ours = <R extends { readonly connectionId: string; readonly date: string }>(list: ReadonlyArray<R>) =>
        list.filter((r) => r.connectionId === connectionId && inCompared(r.date))
      const byDate = { startdateymd: compared.from, enddateymd: compared.to }

      // Daily activity: soft, moderate and intense seconds as minutes, elevation as floors.
      const activity = ours(yield* client.connections.activity({ path, urlParams }))
      const simActivity = (yield* withingsList(
        connectionId,
        "/v2/measure",
        { action: "getactivity", ...byDate },
        "activities"
      )).items
      expect(simActivity.length).toBe(28)
      expect(activity.map((a) => a.date)).toEqual(simActivity.map((d) => d.date))
      for (const day of simActivity) {
        expect(activity.find((a) => a.date === day.date), `activity of ${day.date}`).toMatchObject({
          provider: "Withings",
          steps: day.steps,
          caloriesOut: day.totalcalories,
          distanceMeters: day.distance,
          lightActiveMinutes: day.soft / 60,
          moderateActiveMinutes: day.moderate / 60,
          vigorousActiveMinutes: day.intense / 60,
          sedentaryMinutes: 0,
          floorsClimbed: day.elevation
        })
      }

      // Sleep: a night, dated by the morning it ends in its time zone; the efficiency ratio as a percentage.
      const sleeps = ours(yield* client.healthRecords.sleep({ path, urlParams }))
      const simSleeps = (yield* withingsList(connectionId, "/v2/sleep", { action: "getsummary", ...byDate }, "series"))
        .items
      expect(simSleeps.length).toBe(28)
      expect(sleeps.length).toBe(simSleeps.length)
      for (const night of simSleeps) {
        const served = sleeps.find((s) => s.providerRecordId === String(night.id))
        const d = night.data
        expect(served, `sleep ${night.id}`).toMatchObject({
          date: localDateIn(night.timezone, night.enddate),
          startUtc: new Date(night.startdate * 1000),
          endUtc: new Date(night.enddate * 1000),
          utcOffsetMinutes: offsetIn(night.timezone, night.startdate),
          isNap: false,
          inBedMinutes: minutes(d.total_timeinbed),
          asleepMinutes: minutes(d.total_sleep_time),
          awakeMinutes: minutes(d.wakeupduration),
          lightMinutes: minutes(d.lightsleepduration),
          deepMinutes: minutes(d.deepsleepduration),
          remMinutes: minutes(d.remsleepduration),
          latencyMinutes: minutes(d.sleep_latency),
          averageHeartRate: d.hr_average,
          lowestHeartRate: d.hr_min,
          respiratoryRate: d.rr_average,
          hrvRmssdMs: null,
          spo2Percent: null,
          providerScore: null
        })
        expect(served!.date).toBe(night.date)
        expect(served!.efficiencyPercent).toBeCloseTo(d.sleep_efficiency * 100, 9)
      }

      // Workouts: the category named as the reference names it, dated by the local day it starts.
      const workouts = ours(yield* client.healthRecords.workouts({ path, urlParams }))
      const simWorkouts = (yield* withingsList(
        connectionId,
        "/v2/measure",
        { action: "getworkouts", ...byDate },
        "series"
      )).items
      // The user was chosen for its workouts (`userWithWorkouts`).
      expect(simWorkouts.length).toBeGreaterThan(5)
      expect(workouts.length).toBe(simWorkouts.length)
      for (const workout of simWorkouts) {
        const served = workouts.find((w) => w.providerRecordId === String(workout.id))
        const d = workout.data
        const [name, type] = withingsCategories[workout.category]!
        expect(served, `workout ${workout.id}`).toMatchObject({
          date: localDateIn(workout.timezone, workout.startdate),
          startUtc: new Date(workout.startdate * 1000),
          endUtc: new Date(workout.enddate * 1000),
          utcOffsetMinutes: offsetIn(workout.timezone, workout.startdate),
          providerActivityName: name,
          activityType: type,
          durationMinutes: (workout.enddate - workout.startdate) / 60,
          activeEnergyKilocalories: d.calories,
          distanceMeters: d.distance,
          steps: d.steps,
          averageHeartRate: d.hr_average,
          maxHeartRate: d.hr_max
        })
        expect(JSON.parse(served!.zoneDurationsJson)).toEqual({
          zone0: d.hr_zone_0 / 60,
          zone1: d.hr_zone_1 / 60,
          zone2: d.hr_zone_2 / 60,
          zone3: d.hr_zone_3 / 60
        })
      }

      // Weighings: `value * 10^unit`; blood pressure alone is no body measurement, objectives are never stored.
      const bodies = ours(yield* client.healthRecords.body({ path, urlParams }))
      const start = Math.floor((Date.parse(`${compared.from}T00:00:00Z`) - 14 * 3_600_000) / 1000)
      const measured = yield* withingsList(
        connectionId,
        "/measure",
        { action: "getmeas", startdate: String(start), enddate: String(Math.floor(Date.now() / 1000)) },
        "measuregrps"
      )
      const zone = measured.timezone!
      const groups = measured.items.filter((g) => inCompared(localDateIn(zone, g.date)))
      const weighings = groups.filter((g) => g.category === 1 && g.measures.some((m: any) => m.type === 1))
      const pressures = groups.filter((g) => g.measures.every((m: any) => [9, 10, 11].includes(m.type)))
      expect(weighings.length).toBeGreaterThan(4)
      expect(pressures.length + weighings.length).toBe(groups.length)
      expect(bodies.length).toBe(weighings.length)
      for (const group of weighings) {
        const served = bodies.find((b) => b.providerRecordId === String(group.grpid))
        expect(served, `weighing ${group.grpid}`).toMatchObject({
          date: localDateIn(zone, group.date),
          measuredAtUtc: new Date(group.date * 1000),
          heightMeters: null,
          bmi: null
        })
        expect(served!.weightKilograms).toBeCloseTo(measureValue(group, 1)!, 9)
        expect(served!.bodyFatPercent).toBeCloseTo(measureValue(group, 6)!, 9)
        expect(served!.leanMassKilograms).toBeCloseTo(measureValue(group, 5)!, 9)
        // 65750 with unit -3 is 65.75 kg: three decimals at most
        expect(Math.round(served!.weightKilograms! * 1000)).toBe(group.measures.find((m: any) => m.type === 1).value)
      }
      for (const group of pressures) {
        expect(bodies.some((b) => b.providerRecordId === String(group.grpid)), `blood pressure ${group.grpid}`).toBe(
          false
        )
      }
    }))

  it.effect("a refresh under concurrent syncs presents each Withings refresh token once", () =>
    Effect.gen(function*() {
      const connected = yield* Users
      const { connectionId } = connected.withings
      const tokens = yield* ConnectionTokens
      const before = yield* tokens.stored(connectionId)
      const stale = `bearer:${tokenFingerprint(Redacted.value(before.accessToken))}`
      const since = new Date()
      const client = yield* apiClient(connected.token)
      const path = { userId: connected.userId, connectionId }

      // Every access token dead at once: the server learns it from the 401s, not from the stored expiry.
      yield* sim("Withings", "POST", "expire-tokens")
      const startdate = Math.floor(Date.now() / 1000) - 5 * 86_400
      const notify = (appli: number) =>
        send("POST", `/webhooks/withings/${connected.appId}`, {
          body: new URLSearchParams({
            userid: connected.withings.providerUserId,
            appli: String(appli),
            startdate: String(startdate),
            enddate: String(Math.floor(Date.now() / 1000))
          }).toString(),
          contentType: "application/x-www-form-urlencoded"
        })
      // Syncs, notifications and the forced refresh a 401 makes, all at once. The connection's sync entity runs its
      // syncs and notifications one after another; the forced refreshes race for the row lock.
      const [syncs, notices] = yield* Effect.all([
        Effect.all([1, 2, 3].map(() => client.connections.resync({ path, payload: null })), {
          concurrency: "unbounded"
        }),
        Effect.all([1, 16, 44].map(notify), { concurrency: "unbounded" }),
        Effect.all([1, 2, 3].map(() => tokens.fresh(connectionId, { force: true })), { concurrency: "unbounded" })
      ], { concurrency: "unbounded" })
      expect(syncs.map((s) => s.kind)).toEqual(["Recent", "Recent", "Recent"])
      expect(notices.map((reply) => reply.status)).toEqual([200, 200, 200])
      yield* waitForSync(connected.userId, connected.token, connectionId, { since })

      // Each notification is read, after the syncs, over the range it names (activity a day either side of its
      // UTC dates, sleep a further day before).
      const notifiedFrom = addDays(dateOf(startdate * 1000), -1)
      const calls = yield* eventually(
        Effect.map(simCalls("Withings"), (calls) => calls.filter((c) => Date.parse(c.time) >= since.getTime())),
        (calls) =>
          calls.some((c) => c.params["action"] === "getmeas" && c.params["startdate"] === String(startdate)) &&
          calls.some((c) => c.params["action"] === "getactivity" && c.params["startdateymd"] === notifiedFrom) &&
          calls.some((c) =>
            c.params["action"] === "getsummary" && c.params["startdateymd"] === addDays(notifiedFrom, -1)
          ),
        "the notified reads"
      )
      const refreshes = calls.filter((c) => c.path === "/v2/oauth2" && c.params["grant_type"] === "refresh_token")
      expect(refreshes.length).toBeGreaterThan(0)
      const presented = refreshes.map((c) => c.params["refresh_token"])
      // Withings answers a spent refresh token with HTTP 200 and status 503, so a refusal shows as a token presented
      // twice: every one presented is different, the first is the one stored before, and the one stored now (the
      // last issued) has not been presented.
      expect(new Set(presented).size, JSON.stringify(presented)).toBe(presented.length)
      expect(presented[0]).toBe(tokenFingerprint(Redacted.value(before.refreshToken!)))
      const now = yield* tokens.stored(connectionId)
      expect(presented).not.toContain(tokenFingerprint(Redacted.value(now.refreshToken!)))
      // Once the first refresh is in, no data call carries the dead token.
      const refreshedAt = calls.indexOf(refreshes[0]!)
      const data = calls.slice(refreshedAt).filter((c) => c.path !== "/v2/oauth2")
      expect(data.length).toBeGreaterThan(12)
      expect(data.filter((c) => c.params["auth"] === stale)).toEqual([])
      const connection = yield* connectionOf(connected, connectionId)
      expect(connection).toMatchObject({ status: "Active", syncState: "Idle", syncError: null, statusReason: null })
    }))

  it.effect("webhooks come in through the server: Oura's challenge, Withings' HEAD, subscriptions and notifications", () =>
    Effect.gen(function*() {
      const connected = yield* Users
      const { baseUrl } = yield* TestServer
      const access = yield* ProviderAccess
      const ouraApp = access.sandboxCredentials("Oura")
      const ouraSecret = Redacted.value(ouraApp.clientSecret)

      // Oura's verification of a callback: the app's token answers the challenge, another is refused.
      const right = ouraVerificationToken(ouraSecret)
      const verified = yield* send(
        "GET",
        `/webhooks/oura/${connected.appId}?verification_token=${right}&challenge=abc`
      )
      expect(verified.status, preview(verified)).toBe(200)
      expect(json(verified)).toEqual({ challenge: "abc" })
      const wrong = yield* send("GET", `/webhooks/oura/${connected.appId}?verification_token=nope&challenge=abc`)
      expect(wrong.status, preview(wrong)).toBe(401)

      // The backfill subscribed the app: the simulator keeps a subscription only once the callback answered.
      const callback = `${baseUrl}/webhooks/oura/${connected.appId}`
      const listed = yield* send("GET", "/sandbox/oura/v2/webhook/subscription", {
        headers: { "x-client-id": ouraApp.clientId, "x-client-secret": ouraSecret }
      })
      expect(listed.status, preview(listed)).toBe(200)
      const ours = (json(listed) as Array<any>).filter((s) => s.callback_url === callback)
      expect(ours.map((s) => `${s.event_type}:${s.data_type}`).sort()).toEqual(
        [
          ...["daily_activity", "sleep", "daily_sleep", "daily_readiness", "daily_spo2", "workout"].flatMap((t) => [
            `create:${t}`,
            `update:${t}`
          ]),
          "delete:sleep",
          "delete:workout"
        ].sort()
      )

      // An Oura notification, signed as Oura signs it: the document is read by id, then its day again.
      const day = addDays(today, -3)
      const [night] = yield* ouraDocuments(connected.oura.connectionId, "sleep", day, day)
      const sentAt = new Date()
      const body = JSON.stringify({
        event_type: "update",
        data_type: "sleep",
        object_id: night.id,
        user_id: connected.oura.providerUserId,
        event_time: sentAt.toISOString()
      })
      const timestamp = String(Math.floor(sentAt.getTime() / 1000))
      const delivered = yield* send("POST", `/webhooks/oura/${connected.appId}`, {
        body,
        headers: { "x-oura-timestamp": timestamp, "x-oura-signature": ouraSignatureOf(timestamp, body, ouraSecret) }
      })
      expect(delivered.status, preview(delivered)).toBe(200)
      const forged = yield* send("POST", `/webhooks/oura/${connected.appId}`, {
        body,
        headers: { "x-oura-timestamp": timestamp, "x-oura-signature": ouraSignatureOf(timestamp, body, "not it") }
      })
      expect(forged.status, preview(forged)).toBe(401)
      // In the log's order: the document by id, then the whole day (its window padded a day either side).
      const readById = (calls: ReadonlyArray<{ readonly time: string; readonly path: string }>) =>
        calls.findIndex((c) =>
          Date.parse(c.time) >= sentAt.getTime() && c.path === `/v2/usercollection/sleep/${night.id}`
        )
      yield* eventually(
        simCalls("Oura"),
        (calls) => {
          const byId = readById(calls)
          return byId !== -1 &&
            calls.slice(byId).some((c) =>
              c.path === "/v2/usercollection/sleep" && c.params["start_date"] === addDays(day, -1) &&
              c.params["end_date"] === addDays(day, 1)
            )
        },
        "the Oura notification's reads"
      )

      // Withings checks a callback with HEAD before it subscribes it; the backfill subscribed the user's categories.
      const head = yield* execute(HttpClientRequest.head(`${baseUrl}/webhooks/withings/${connected.appId}`))
      expect(head.status).toBe(200)
      const profiles = (yield* withingsCall(connected.withings.connectionId, "/notify", { action: "list" })).profiles
      expect(profiles.map((p: any) => [p.appli, p.callbackurl]).sort()).toEqual(
        [1, 16, 44, 46].map((appli) => [appli, `${baseUrl}/webhooks/withings/${connected.appId}`]).sort()
      )

      // A Withings notification of new weighings: the server reads the measures of the range it names.
      const startdate = Math.floor(Date.now() / 1000) - 5 * 86_400
      const enddate = Math.floor(Date.now() / 1000)
      const noticeAt = new Date()
      const notice = yield* send("POST", `/webhooks/withings/${connected.appId}`, {
        body: new URLSearchParams({
          userid: connected.withings.providerUserId,
          appli: "1",
          startdate: String(startdate),
          enddate: String(enddate)
        }).toString(),
        contentType: "application/x-www-form-urlencoded"
      })
      expect(notice.status, preview(notice)).toBe(200)
      yield* eventually(
        simCalls("Withings", { path: "/measure" }),
        (calls) =>
          calls.some((c) =>
            Date.parse(c.time) >= noticeAt.getTime() && c.params["action"] === "getmeas" &&
            c.params["startdate"] === String(startdate) && c.params["enddate"] === String(enddate)
          ),
        "the Withings notification's read"
      )
    }))
})
