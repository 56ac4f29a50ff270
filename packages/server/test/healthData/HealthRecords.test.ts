/**
 * Sleep, workouts, recovery and body measurements end to end: a sandbox user connects WHOOP, and the four range
 * reads and the two single reads (through the typed client) answer exactly what the simulator served, converted
 * (milliseconds to minutes, kilojoules to kilocalories); a record is the user's own only. The wire itself (ETag,
 * paging, errors as JSON) is checked with raw requests.
 */
import { expect, layer } from "@effect/vitest"
import type { ConnectionId, HealthRecordId } from "@pulsebridge/domain"
import { apiClient, createUser, makeTestServer } from "@pulsebridge/testing"
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
  }
)
