/**
 * Caffeine and late meals in the sleep score, end to end: WHOOP nights stored through the sync's own
 * store, journal entries made through endpoint 16, daily scores read through endpoint 21. Without a
 * journal the scores are byte for byte what the algorithm gave before journal factors existed (the
 * fixture was recorded from it); with a late coffee and a late meal the night shows `caffeine` and
 * `lateMeal` and its sleep score is lower by their documented points.
 */
import { expect, it } from "@effect/vitest"
import type { User } from "@pulsebridge/domain"
import type { SleepRecord } from "@pulsebridge/providers"
import { emptyBatch } from "@pulsebridge/providers"
import { addConnection, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { RecordStore } from "../../src/sync/RecordStore.js"
import { json, preview, send } from "../fixtures/Http.js"

/** The daily scores of the nights below for a user without a journal, as algorithm 1.0 computed them. */
const fixture = path.join(__dirname, "fixtures", "nights-without-journal.json")

const minutes = 60_000

/**
 * One WHOOP night ending on `date`, centred on 03:00 UTC (so the regularity and timing are perfect
 * and the nights differ in duration, efficiency, wake time and stages).
 */
const night = (
  date: string,
  hoursInBed: number,
  awake: number,
  stages: readonly [light: number, deep: number, rem: number] | null,
  efficiencyPercent: number | null
): SleepRecord => {
  const midpoint = new Date(`${date}T03:00:00.000Z`).getTime()
  return {
    providerRecordId: `sleep-${date}`,
    date,
    start: new Date(midpoint - hoursInBed * 30 * minutes),
    end: new Date(midpoint + hoursInBed * 30 * minutes),
    utcOffsetMinutes: 0,
    nap: false,
    scoreState: "SCORED",
    inBedMinutes: hoursInBed * 60,
    asleepMinutes: stages === null ? null : stages[0] + stages[1] + stages[2],
    latencyMinutes: null,
    averageHeartRate: null,
    lowestHeartRate: null,
    hrvRmssdMs: null,
    spo2Percent: null,
    providerScore: null,
    providerScoreScale: null,
    awakeMinutes: awake,
    lightMinutes: stages?.[0] ?? null,
    deepMinutes: stages?.[1] ?? null,
    remMinutes: stages?.[2] ?? null,
    sleepNeedMinutes: null,
    respiratoryRate: 15.5,
    performancePercent: null,
    consistencyPercent: null,
    efficiencyPercent,
    disturbanceCount: null,
    rawJson: JSON.stringify({ date })
  }
}

const nights: ReadonlyArray<SleepRecord> = [
  night("2026-03-02", 6, 45, [200, 40, 75], null),
  night("2026-03-03", 9, 30, [300, 100, 110], 94.4),
  night("2026-03-04", 7, 60, null, 85.7),
  night("2026-03-05", 8, 20, [250, 90, 120], 95.8),
  night("2026-03-06", 8, 25, [315, 60, 80], 94.8),
  night("2026-03-07", 10, 40, [380, 90, 90], 93.3),
  // 23:00 to 07:00, every factor at full marks: the night the journal entries are about
  night("2026-03-08", 8, 15, [255, 90, 120], 96.9)
]

/** A WHOOP connection of the user with the nights above. */
const withNights = (user: User) =>
  Effect.gen(function*() {
    const connectionId = yield* addConnection(user, "WHOOP")
    const store = yield* RecordStore
    yield* store.storeBatch(
      { connectionId, userId: user.id, provider: "WHOOP" },
      { ...emptyBatch, sleep: nights },
      "2026-03-08"
    )
  })

const dailyScores = (token: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", "/api/v1/scores/daily?from=2026-03-01&to=2026-03-08", { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return reply
  })

/** The journal's entries through endpoint 16. */
const record = (token: string, userId: string, body: unknown) =>
  Effect.gen(function*() {
    const reply = yield* send("POST", `/api/v1/users/${userId}/journal-entries`, { bearer: token, json: body })
    expect(reply.status, preview(reply)).toBe(201)
  })

/** The response body as algorithm 1.0 wrote it: the same bytes, labelled 1.0. */
const as10 = (text: string) => text.replaceAll(`"algorithmVersion":"1.2"`, `"algorithmVersion":"1.0"`)

it.layer(makeTestServer(), { timeout: "120 seconds" })("caffeine and late meals in the sleep score", (it) => {
  it.effect("without a journal, the daily scores are byte for byte those of algorithm 1.0", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("intake-none")
      yield* withNights(user)
      const reply = yield* dailyScores(token)
      const recorded = JSON.stringify(JSON.parse(fs.readFileSync(fixture, "utf8")))
      expect(reply.text).toContain(`"algorithmVersion":"1.2"`)
      expect(as10(reply.text)).toBe(recorded)
      const days = json(reply) as Array<any>
      expect(days.map((d) => d.sleepScore)).toEqual([100, 93, 97, 100, 64, 98, 67])
      for (const day of days) {
        const keys = day.components.sleep.factors.map((f: any) => f.key)
        expect(keys).not.toContain("caffeine")
        expect(keys).not.toContain("lateMeal")
      }
    }))

  it.effect("a late coffee and a late meal show as factors of that night and cost their documented points", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("intake-late")
      yield* withNights(user)
      // the night ending on 8 March starts at 23:00 on the 7th: 200 mg five hours before leaves 100 mg,
      // and dinner ends 2.5 hours before
      yield* record(token, user.id, {
        entryKind: "Coffee",
        consumedAtUtc: "2026-03-07T18:00:00Z",
        nutrients: { caffeineMg: 200, volumeMl: 350 }
      })
      yield* record(token, user.id, {
        entryKind: "Meal",
        consumedAtUtc: "2026-03-07T20:30:00Z",
        title: "Pasta",
        nutrients: { caloriesKcal: 750 }
      })
      // water counts for nothing: the night before keeps its score without journal factors
      yield* record(token, user.id, { entryKind: "Water", consumedAtUtc: "2026-03-06T21:00:00Z" })

      const reply = yield* dailyScores(token)
      const days = json(reply) as Array<any>
      const plain = JSON.parse(fs.readFileSync(fixture, "utf8")) as Array<any>
      expect(days.map((d) => d.date)).toEqual(plain.map((d) => d.date))
      // every other night is unchanged
      for (const [i, day] of days.entries()) {
        if (day.date !== "2026-03-08") expect(as10(JSON.stringify(day))).toBe(JSON.stringify(plain[i]))
      }

      const night = days[0]
      const before = plain[0]
      expect(night.date).toBe("2026-03-08")
      expect(before.sleepScore).toBe(100)
      // caffeine 100 mg -> sub-score 50, 0.10 x 50 = 5 points; meal 2.5 h -> 85, 0.05 x 15 = 0.75 points
      expect(night.sleepScore).toBe(Math.round(100 - 5 - 0.75))
      expect(night.sleepScore).toBe(94)
      expect(night.components.sleep.score).toBe(94)
      const factors = night.components.sleep.factors
      expect(factors.slice(0, -2)).toEqual(before.components.sleep.factors)
      expect(night.components.sleep.coverage).toBe(before.components.sleep.coverage)
      expect(factors.slice(-2)).toEqual([
        {
          key: "caffeine",
          value: 100,
          unit: "mg",
          reference: { kind: "target", value: 30 },
          subScore: 50,
          weight: 0.1,
          effectiveWeight: 0.1,
          pointsLost: 5,
          state: "scored",
          source: null
        },
        {
          key: "lateMeal",
          value: 2.5,
          unit: "h",
          reference: { kind: "target", value: 3 },
          subScore: 85,
          weight: 0.05,
          effectiveWeight: 0.05,
          pointsLost: 0.8,
          state: "scored",
          source: null
        }
      ])
    }))
})
