/**
 * Sleep, workouts, recovery and body measurements end to end: a sandbox user connects WHOOP, and the four range
 * reads and the two single reads (through the typed client) answer exactly what the simulator served, converted
 * (milliseconds to minutes, kilojoules to kilocalories); a record is the user's own only. The wire itself (ETag,
 * paging, errors as JSON) is checked with raw requests. Then a user connects all four providers: every sleep,
 * workout, day of recovery and body measurement the Garmin and Google Health (Fitbit) simulators serve for the
 * last 30 days is read back converted (seconds and ISO durations to minutes, grams to kilograms, millimetres to
 * metres), and a user with only Garmin or only Fitbit gets sleep and recovery scores from them.
 */
import { expect, layer } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import type { ConnectionId, HealthRecordId } from "@pulsebridge/domain"
import { makeSimulator } from "@pulsebridge/sandbox"
import { apiClient, createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import type { Reply } from "../fixtures/Http.js"
import { expectError, expectOwnTokenOnly, json, preview, send, unknownId } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

const DAY = 86_400_000
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Every record the WHOOP simulator serves the connection under `path` since `start`, page by page. */
const whoopRecords = (connectionId: string, path: string, start?: string) =>
  Effect.gen(function*() {
    const stored = yield* (yield* ConnectionTokens).stored(connectionId)
    const out: Array<any> = []
    let next: string | undefined
    do {
      const query = new URLSearchParams({
        ...(start === undefined ? {} : { start }),
        limit: "25",
        ...(next === undefined ? {} : { nextToken: next })
      })
      const reply = yield* send("GET", `/sandbox/whoop/developer/v2/${path}?${query}`, {
        bearer: Redacted.value(stored.accessToken)
      })
      expect(reply.status, preview(reply)).toBe(200)
      const page = json(reply) as any
      if (!Array.isArray(page.records)) return [page]
      out.push(...page.records)
      next = page.next_token ?? undefined
    } while (next !== undefined)
    return out
  })

const minutes = (millis: number | undefined) => millis === undefined ? null : millis / 60_000

/** Every point the Google Health simulator lists for the connection's `dataType` whose day is in `from`..`until`. */
const googlePoints = (connectionId: string, dataType: string, filter: string) =>
  Effect.gen(function*() {
    const stored = yield* (yield* ConnectionTokens).stored(connectionId)
    const out: Array<any> = []
    let next: string | undefined
    do {
      const query = new URLSearchParams({ filter, ...(next === undefined ? {} : { pageToken: next }) })
      const reply = yield* send("GET", `/sandbox/fitbit/v4/users/me/dataTypes/${dataType}/dataPoints?${query}`, {
        bearer: Redacted.value(stored.accessToken)
      })
      expect(reply.status, preview(reply)).toBe(200)
      const page = json(reply) as any
      out.push(...(page.dataPoints ?? []))
      next = page.nextPageToken || undefined
    } while (next !== undefined)
    return out
  })

/** Seconds of a Google duration (`"2100s"`). */
const durationSeconds = (text: string) => Number(text.replace(/s$/, ""))

// No periodic sync: the simulator's records and the stored ones must be the same set while the test reads both.
layer(makeTestServer({ sandbox: true, syncCron: "0 0 1 1 *" }), { timeout: "300 seconds", excludeTestServices: true })(
  "health records",
  (it) => {
    it.effect("a WHOOP user's sleep, workouts, recovery and body read as the simulator served them", () =>
      Effect.gen(function*() {
        const { apiKey, token, user } = yield* createUser(`records-${simulatedUser("u")}`)
        const connected = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop-records"))
        const connectionId = connected.connectionId as ConnectionId
        yield* waitForSync(user.id, token, connectionId)
        const client = yield* apiClient(token)
        const urlParams = { from: dateOf(Date.now() - 40 * DAY), to: dateOf(Date.now() + DAY) }
        const path = { userId: user.id }
        const since = new Date(Date.now() - 30 * DAY).toISOString()

        // Sleep: every session and nap, stages in minutes, the performance as the provider's score.
        const sleeps = yield* client.healthRecords.sleep({ path, urlParams })
        const simSleeps = yield* whoopRecords(connectionId, "activity/sleep", since)
        expect(simSleeps.length).toBeGreaterThan(25)
        for (const sim of simSleeps) {
          const served = sleeps.find((s) => s.providerRecordId === sim.id)
          expect(served, `sleep ${sim.id}`).toBeDefined()
          const stages = sim.score?.stage_summary
          expect(served).toMatchObject({
            connectionId,
            provider: "WHOOP",
            startUtc: new Date(sim.start),
            endUtc: new Date(sim.end),
            isNap: sim.nap,
            inBedMinutes: minutes(stages?.total_in_bed_time_milli),
            awakeMinutes: minutes(stages?.total_awake_time_milli),
            lightMinutes: minutes(stages?.total_light_sleep_time_milli),
            deepMinutes: minutes(stages?.total_slow_wave_sleep_time_milli),
            remMinutes: minutes(stages?.total_rem_sleep_time_milli),
            efficiencyPercent: sim.score?.sleep_efficiency_percentage ?? null,
            respiratoryRate: sim.score?.respiratory_rate ?? null,
            providerScore: sim.score?.sleep_performance_percentage ?? null,
            latencyMinutes: null
          })
          if (stages !== undefined) {
            expect(served!.asleepMinutes).toBeCloseTo(
              (stages.total_light_sleep_time_milli + stages.total_slow_wave_sleep_time_milli +
                stages.total_rem_sleep_time_milli) / 60_000,
              9
            )
            expect(served!.providerScoreScale).toBe("WhoopSleepPerformance0To100")
          }
          // the day it wakes into, at its own offset
          const offset = served!.utcOffsetMinutes!
          expect(served!.date).toBe(dateOf(Date.parse(sim.end) + offset * 60_000))
        }
        expect(sleeps.map((s) => s.date)).toEqual([...sleeps.map((s) => s.date)].sort())

        // Workouts: strain as the load score, kilojoules as kilocalories, a type from the sport's name.
        const workouts = yield* client.healthRecords.workouts({ path, urlParams })
        const simWorkouts = yield* whoopRecords(connectionId, "activity/workout", since)
        expect(simWorkouts.length).toBeGreaterThan(5)
        for (const sim of simWorkouts) {
          const served = workouts.find((w) => w.providerRecordId === sim.id)
          expect(served, `workout ${sim.id}`).toBeDefined()
          expect(served).toMatchObject({
            startUtc: new Date(sim.start),
            endUtc: new Date(sim.end),
            providerActivityName: sim.sport_name,
            durationMinutes: (Date.parse(sim.end) - Date.parse(sim.start)) / 60_000,
            loadScore: sim.score?.strain ?? null,
            averageHeartRate: sim.score?.average_heart_rate ?? null,
            maxHeartRate: sim.score?.max_heart_rate ?? null,
            distanceMeters: sim.score?.distance_meter ?? null,
            steps: null
          })
          expect(served!.activeEnergyKilocalories).toBeCloseTo(sim.score.kilojoule / 4.184, 9)
          expect(served!.activityType).not.toBe(undefined)
        }

        // Recovery: the scored ones, one per cycle.
        const recoveries = yield* client.healthRecords.recovery({ path, urlParams })
        const simRecoveries = yield* whoopRecords(connectionId, "recovery", since)
        const scored = simRecoveries.filter((r) => r.score_state === "SCORED")
        expect(scored.length).toBeGreaterThan(20)
        for (const sim of scored) {
          const served = recoveries.find((r) => r.providerRecordId === String(sim.cycle_id))
          expect(served, `recovery of cycle ${sim.cycle_id}`).toBeDefined()
          expect(served).toMatchObject({
            restingHeartRate: sim.score.resting_heart_rate,
            hrvRmssdMs: sim.score.hrv_rmssd_milli,
            spo2Percent: sim.score.spo2_percentage ?? null,
            skinTemperatureCelsius: sim.score.skin_temp_celsius ?? null,
            providerScore: sim.score.recovery_score,
            providerScoreScale: "WhoopRecovery0To100",
            respiratoryRate: null,
            skinTemperatureDeviationCelsius: null
          })
        }
        for (const sim of simRecoveries.filter((r) => r.score_state !== "SCORED")) {
          expect(recoveries.some((r) => r.providerRecordId === String(sim.cycle_id))).toBe(false)
        }

        // Body: today's measurement as read.
        const body = yield* client.healthRecords.body({ path, urlParams })
        const [simBody] = yield* whoopRecords(connectionId, "user/measurement/body")
        expect(body.length).toBeGreaterThan(0)
        expect(body.at(-1)).toMatchObject({
          weightKilograms: simBody.weight_kilogram,
          heightMeters: simBody.height_meter,
          bodyFatPercent: null,
          bmi: null,
          leanMassKilograms: null
        })

        // Single reads: with the provider's JSON; 404 for another connection's or an unknown id; 403 for another
        // user's path.
        const sleep = sleeps.find((s) => !s.isNap)!
        const detail = yield* client.healthRecords.sleepById({
          path: { userId: user.id, connectionId, id: sleep.id }
        })
        expect(detail).toMatchObject({ ...sleep })
        expect(JSON.parse(detail.rawJson)).toMatchObject({ id: sleep.providerRecordId })
        const workout = workouts[0]!
        const workoutDetail = yield* client.healthRecords.workoutById({
          path: { userId: user.id, connectionId, id: workout.id }
        })
        expect(JSON.parse(workoutDetail.rawJson)).toMatchObject({ id: workout.providerRecordId })

        const other = yield* createUser(`records-other-${simulatedUser("u")}`)
        const otherClient = yield* apiClient(other.token)
        const stranger = yield* otherClient.healthRecords.sleepById({
          path: { userId: other.user.id, connectionId, id: sleep.id }
        }).pipe(Effect.flip)
        expect(stranger._tag).toBe("NotFound")
        const unknown = yield* client.healthRecords.sleepById({
          path: { userId: user.id, connectionId, id: unknownId() as HealthRecordId }
        }).pipe(Effect.flip)
        expect(unknown._tag).toBe("NotFound")
        // a workout's id is not a sleep's
        const crossed = yield* client.healthRecords.sleepById({
          path: { userId: user.id, connectionId, id: workout.id }
        }).pipe(Effect.flip)
        expect(crossed._tag).toBe("NotFound")
        const elsewhere = yield* client.healthRecords.sleepById({
          path: { userId: user.id, connectionId: unknownId() as ConnectionId, id: sleep.id }
        }).pipe(Effect.flip)
        expect(elsewhere._tag).toBe("NotFound")

        // The wire: the user's own token only, a bad id is a 400, ETag and 304, paging.
        const query = `from=${urlParams.from}&to=${urlParams.to}`
        for (const kind of ["sleep", "workouts", "recovery", "body"]) {
          yield* expectOwnTokenOnly(
            { apiKey, token, userId: user.id, otherId: other.user.id },
            (userId) => `/api/v1/users/${userId}/connections/${kind}?${query}`
          )
        }
        expectError(
          yield* send("GET", `/api/v1/users/${user.id}/connections/${connectionId}/sleep/not-a-uuid`, {
            bearer: token
          }),
          400
        )
        expectError(
          yield* send("GET", `/api/v1/users/${user.id}/connections/sleep?from=${urlParams.to}&to=${urlParams.from}`, {
            bearer: token
          }),
          400
        )
        const whole = yield* send("GET", `/api/v1/users/${user.id}/connections/sleep?${query}`, { bearer: token })
        expect(whole.status).toBe(200)
        const etag = whole.headers["etag"]!
        expect(etag).toMatch(/^W\//)
        const again = yield* send("GET", `/api/v1/users/${user.id}/connections/sleep?${query}`, {
          bearer: token,
          headers: { "if-none-match": etag }
        })
        expect(again.status).toBe(304)
        const paged: Array<any> = []
        let next: string | undefined = `/api/v1/users/${user.id}/connections/sleep?${query}&limit=7`
        while (next !== undefined) {
          const page: Reply = yield* send("GET", next, { bearer: token })
          expect(page.status, preview(page)).toBe(200)
          paged.push(...(json(page) as Array<any>))
          next = /<([^>]+)>; rel="next"/.exec(page.headers["link"] ?? "")?.[1]
        }
        expect(paged).toEqual(json(whole))
      }))

    it.effect("a user of all four providers reads Garmin's and Google Health's records as their simulators served them", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`records-four-${simulatedUser("u")}`)
        const providers: ReadonlyArray<Provider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]
        const connections: Record<string, ConnectionId> = {}
        for (const provider of providers) {
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser(`records-${provider}`))
          connections[provider] = connectionId as ConnectionId
        }
        for (const provider of providers) yield* waitForSync(user.id, token, connections[provider]!)
        const client = yield* apiClient(token)
        const today = dateOf(Date.now())
        const from = dateOf(Date.now() - 29 * DAY)
        const urlParams = { from, to: today }
        const path = { userId: user.id }
        const [sleeps, workouts, recoveries, bodies] = yield* Effect.all([
          client.healthRecords.sleep({ path, urlParams }),
          client.healthRecords.workouts({ path, urlParams }),
          client.healthRecords.recovery({ path, urlParams }),
          client.healthRecords.body({ path, urlParams })
        ])
        // Every type from WHOOP, Garmin and Fitbit; nothing from Dexcom.
        for (const [kind, list] of [["sleep", sleeps], ["workouts", workouts], ["recovery", recoveries]] as const) {
          expect(new Set(list.map((r) => r.provider)), kind).toEqual(new Set(["Fitbit", "Garmin", "WHOOP"]))
        }
        expect(new Set(bodies.map((r) => r.provider))).toEqual(new Set(["Fitbit", "Garmin", "WHOOP"]))
        const of = <R extends { readonly provider: string; readonly providerRecordId: string }>(
          list: ReadonlyArray<R>,
          provider: Provider
        ) => new Map(list.filter((r) => r.provider === provider).map((r) => [r.providerRecordId, r]))

        // Google Health (Fitbit): the simulator's points of the range, listed with the connection's own token.
        const fitbit = connections["Fitbit"]!
        const until = dateOf(Date.now() + DAY)
        const fitbitSleeps = of(sleeps, "Fitbit")
        const googleSleeps = yield* googlePoints(
          fitbit,
          "sleep",
          `sleep.interval.civil_end_time >= "${from}" AND sleep.interval.civil_end_time < "${until}"`
        )
        expect(googleSleeps.length).toBeGreaterThan(25)
        for (const point of googleSleeps) {
          const id = point.name.split("/").pop()
          const served = fitbitSleeps.get(id)
          expect(served, `Fitbit sleep ${id}`).toBeDefined()
          const interval = point.sleep.interval
          expect(served).toMatchObject({
            startUtc: new Date(interval.startTime),
            endUtc: new Date(interval.endTime),
            utcOffsetMinutes: durationSeconds(interval.endUtcOffset) / 60,
            isNap: point.sleep.metadata?.nap === true
          })
          const end = interval.civilEndTime.date
          expect(served!.date).toBe(
            `${end.year}-${String(end.month).padStart(2, "0")}-${String(end.day).padStart(2, "0")}`
          )
          expect(JSON.parse(
            (yield* client.healthRecords.sleepById({
              path: { userId: user.id, connectionId: fitbit, id: served!.id }
            })).rawJson
          )).toEqual(point)
        }
        expect(fitbitSleeps.size).toBe(googleSleeps.length)

        const fitbitWorkouts = of(workouts, "Fitbit")
        const googleExercise = yield* googlePoints(
          fitbit,
          "exercise",
          `exercise.interval.civil_start_time >= "${from}" AND exercise.interval.civil_start_time < "${until}"`
        )
        expect(googleExercise.length).toBeGreaterThan(10)
        for (const point of googleExercise) {
          const id = point.name.split("/").pop()
          const served = fitbitWorkouts.get(id)
          expect(served, `Fitbit exercise ${id}`).toBeDefined()
          const summary = point.exercise.metricsSummary ?? {}
          expect(served).toMatchObject({
            startUtc: new Date(point.exercise.interval.startTime),
            endUtc: new Date(point.exercise.interval.endTime),
            providerActivityName: point.exercise.displayName,
            durationMinutes: durationSeconds(point.exercise.activeDuration) / 60,
            distanceMeters: summary.distanceMillimeters === undefined ? null : summary.distanceMillimeters / 1000,
            steps: summary.steps === undefined ? null : Number(summary.steps)
          })
        }
        expect(fitbitWorkouts.size).toBe(googleExercise.length)

        const fitbitBody = [...of(bodies, "Fitbit").values()]
        const googleWeights = yield* googlePoints(
          fitbit,
          "weight",
          `weight.sample_time.civil_time >= "${from}" AND weight.sample_time.civil_time < "${until}"`
        )
        expect(googleWeights.length).toBeGreaterThan(3)
        for (const point of googleWeights) {
          const at = Date.parse(point.weight.sampleTime.physicalTime)
          const served = fitbitBody.find((b) => b.measuredAtUtc.getTime() === at)
          expect(served, `Fitbit weighing at ${point.weight.sampleTime.physicalTime}`).toBeDefined()
          expect(served!.weightKilograms).toBeCloseTo(point.weight.weightGrams / 1000, 9)
        }

        const fitbitRecovery = [...of(recoveries, "Fitbit").values()]
        const googleHrv = yield* googlePoints(
          fitbit,
          "daily-heart-rate-variability",
          `daily_heart_rate_variability.date >= "${from}" AND daily_heart_rate_variability.date < "${until}"`
        )
        expect(googleHrv.length).toBeGreaterThan(20)
        for (const point of googleHrv) {
          const d = point.dailyHeartRateVariability.date
          const date = `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`
          const served = fitbitRecovery.find((r) => r.date === date)
          expect(served, `Fitbit recovery of ${date}`).toBeDefined()
          expect(served!.hrvRmssdMs).toBe(point.dailyHeartRateVariability.averageHeartRateVariabilityMilliseconds)
        }

        // Garmin: the summaries its simulator (the same seed as the sandbox's) files under the range's days.
        const garmin = connections["Garmin"]!
        const { baseUrl } = yield* TestServer
        const garminSim = makeSimulator("Garmin", {
          baseUrl: `${baseUrl}/sandbox/garmin`,
          clients: [],
          seed: "pulsebridge-sandbox"
        })
        const listed = (yield* client.connections.list({ path })).find((c) => c.id === garmin)!
        const days: Array<string> = []
        for (let d = Date.now() - 26 * DAY; d <= Date.now() - 3 * DAY; d += DAY) days.push(dateOf(d))
        const garminSleeps = [...of(sleeps, "Garmin").values()]
        const summariesOf = (type: "sleeps" | "activities" | "hrv" | "bodyComps") =>
          garminSim.control.summaries(listed.providerUserId, type, days) as ReadonlyArray<any>
        const simSleeps = summariesOf("sleeps")
        expect(simSleeps.length).toBeGreaterThan(15)
        for (const sleep of simSleeps) {
          const start = sleep.startTimeInSeconds * 1000
          const served = garminSleeps.find((s) => s.startUtc.getTime() === start && !s.isNap)
          expect(served, `Garmin sleep of ${sleep.calendarDate}`).toBeDefined()
          expect(served).toMatchObject({
            endUtc: new Date(start + sleep.durationInSeconds * 1000),
            utcOffsetMinutes: sleep.startTimeOffsetInSeconds / 60,
            date: sleep.calendarDate,
            deepMinutes: sleep.deepSleepDurationInSeconds / 60,
            lightMinutes: sleep.lightSleepDurationInSeconds / 60,
            remMinutes: sleep.remSleepInSeconds / 60,
            awakeMinutes: sleep.awakeDurationInSeconds / 60,
            providerScore: sleep.overallSleepScore?.value ?? null
          })
        }
        const garminWorkouts = of(workouts, "Garmin")
        const simActivities = summariesOf("activities")
        expect(simActivities.length).toBeGreaterThan(10)
        for (const activity of simActivities) {
          const served = garminWorkouts.get(String(activity.summaryId))
          expect(served, `Garmin activity ${activity.summaryId}`).toBeDefined()
          expect(served).toMatchObject({
            startUtc: new Date(activity.startTimeInSeconds * 1000),
            durationMinutes: activity.durationInSeconds / 60,
            providerActivityName: activity.activityType,
            activeEnergyKilocalories: activity.activeKilocalories ?? null,
            averageHeartRate: activity.averageHeartRateInBeatsPerMinute ?? null
          })
        }
        const garminRecovery = [...of(recoveries, "Garmin").values()]
        for (const hrv of summariesOf("hrv")) {
          const served = garminRecovery.find((r) => r.date === hrv.calendarDate)
          expect(served, `Garmin recovery of ${hrv.calendarDate}`).toBeDefined()
          expect(served!.hrvRmssdMs).toBe(hrv.lastNightAvg)
        }
        const garminBody = [...of(bodies, "Garmin").values()]
        const simBodies = summariesOf("bodyComps")
        expect(simBodies.length).toBeGreaterThan(2)
        for (const body of simBodies) {
          const served = garminBody.find((b) => b.providerRecordId === body.summaryId)
          expect(served, `Garmin body composition ${body.summaryId}`).toBeDefined()
          expect(served).toMatchObject({
            measuredAtUtc: new Date(body.measurementTimeInSeconds * 1000),
            bodyFatPercent: body.bodyFatInPercent ?? null,
            bmi: body.bodyMassIndex ?? null
          })
          expect(served!.weightKilograms).toBeCloseTo(body.weightInGrams / 1000, 9)
        }
      }))

    it.effect("a user with only Garmin, or only Fitbit, gets sleep and recovery scores from that device", () =>
      Effect.gen(function*() {
        for (const provider of ["Garmin", "Fitbit"] as const) {
          const { token, user } = yield* createUser(`records-only-${provider}-${simulatedUser("u")}`)
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser(`only-${provider}`))
          yield* waitForSync(user.id, token, connectionId)
          const client = yield* apiClient(token)
          const scores = yield* client.scores.daily({
            urlParams: { from: dateOf(Date.now() - 29 * DAY), to: dateOf(Date.now() - DAY) }
          })
          const sleepScored = scores.filter((s) => s.sleepScore !== null)
          expect(sleepScored.length, `${provider} sleep scores`).toBeGreaterThan(15)
          for (const s of sleepScored) {
            const duration = s.components.sleep.factors.find((f) => f.key === "duration")!
            expect(duration.source, provider).toBe(provider)
          }
          // Recovery needs 14 nights of baseline first.
          const recoveryScored = scores.filter((s) => s.recoveryScore !== null)
          expect(recoveryScored.length, `${provider} recovery scores`).toBeGreaterThan(5)
          for (const s of recoveryScored) {
            const sources = new Set(s.components.recovery.factors.map((f) => f.source).filter((x) => x !== null))
            expect([...sources], `${provider} recovery of ${s.date}`).toEqual([provider])
          }
        }
      }))
  }
)
