/**
 * An Oura day's recovery, assembled from what Oura keeps in separate documents of the same `day`:
 * `daily_readiness` (the readiness score 0-100, `temperature_deviation` in °C against the wearer's baseline),
 * `daily_spo2` (`spo2_percentage.average`, the night's mean) and the night's main sleep (`long_sleep`: its
 * `lowest_heart_rate`, the resting heart rate the Oura app shows; `average_hrv`, the RMSSD in ms;
 * `average_breath`). Readiness contributors (`hrv_balance`, `resting_heart_rate`, ...) are scores 0-100, not
 * measurements: they stay in the raw JSON.
 *
 * Each day becomes one `RecoveryRecord` keyed `recovery:<day>` and stored `partial`: a source that is missing in
 * one read (a scope not granted, a document quarantined, a notification re-reading one day) never clears what
 * another read stored. Its raw JSON is keyed by source (`daily_readiness`, `daily_spo2`, `sleep`).
 */
import * as Schema from "effect/Schema"
import type { RecoveryRecord } from "../Canonical.js"
import { dayRecovery } from "../Canonical.js"
import { DateString, keepUnknownFields } from "../Shared.js"
import type { OuraSleep } from "./Normalise.js"
import { isOuraMainSleep } from "./Normalise.js"

/** `daily_readiness`. */
export const OuraDailyReadiness = Schema.Struct({
  id: Schema.NonEmptyString,
  day: DateString,
  score: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 100)))),
  temperature_deviation: Schema.optional(Schema.NullOr(Schema.Number)),
  temperature_trend_deviation: Schema.optional(Schema.NullOr(Schema.Number)),
  contributors: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
}).annotations(keepUnknownFields)
export type OuraDailyReadiness = typeof OuraDailyReadiness.Type

/** `daily_spo2`: `spo2_percentage` is null on nights the ring measured none. */
export const OuraDailySpo2 = Schema.Struct({
  id: Schema.NonEmptyString,
  day: DateString,
  spo2_percentage: Schema.optional(Schema.NullOr(Schema.Struct({
    average: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 100))))
  }))),
  breathing_disturbance_index: Schema.optional(Schema.NullOr(Schema.Number))
}).annotations(keepUnknownFields)
export type OuraDailySpo2 = typeof OuraDailySpo2.Type

/** The night's main sleep of each day: of several `long_sleep` periods, the longest in bed. */
export const ouraMainSleeps = (sleeps: Iterable<OuraSleep>): ReadonlyMap<string, OuraSleep> => {
  const byDay = new Map<string, OuraSleep>()
  for (const sleep of sleeps) {
    if (!isOuraMainSleep(sleep)) continue
    const held = byDay.get(sleep.day)
    if (held === undefined || sleep.time_in_bed > held.time_in_bed) byDay.set(sleep.day, sleep)
  }
  return byDay
}

/** What the day's recovery takes from a sleep period (the rest of the sleep is its own record). */
const sleepPart = (sleep: OuraSleep) => ({
  id: sleep.id,
  lowest_heart_rate: sleep.lowest_heart_rate ?? null,
  average_hrv: sleep.average_hrv ?? null,
  average_breath: sleep.average_breath ?? null
})

/**
 * The recovery of each day that has a readiness, an SpO2 or a main sleep among the documents given, in date
 * order. Each is `partial` (see the module comment).
 */
export const assembleOuraRecoveries = (parts: {
  readonly readiness: ReadonlyArray<OuraDailyReadiness>
  readonly spo2: ReadonlyArray<OuraDailySpo2>
  readonly sleeps: ReadonlyArray<OuraSleep>
}): ReadonlyArray<RecoveryRecord> => {
  const readiness = new Map(parts.readiness.map((r) => [r.day, r]))
  const spo2 = new Map(parts.spo2.map((s) => [s.day, s]))
  const mainSleeps = ouraMainSleeps(parts.sleeps)
  const days = [...new Set([...readiness.keys(), ...spo2.keys(), ...mainSleeps.keys()])].sort()
  return days.map((day) => {
    const r = readiness.get(day)
    const s = spo2.get(day)
    const sleep = mainSleeps.get(day)
    const raw: Record<string, unknown> = {}
    if (r !== undefined) raw["daily_readiness"] = r
    if (s !== undefined) raw["daily_spo2"] = s
    if (sleep !== undefined) raw["sleep"] = sleepPart(sleep)
    const base = dayRecovery(
      day,
      {
        restingHeartRate: sleep?.lowest_heart_rate ?? null,
        hrvRmssdMs: sleep?.average_hrv ?? null,
        respiratoryRate: sleep?.average_breath ?? null,
        spo2Percent: s?.spo2_percentage?.average ?? null,
        skinTemperatureDeviationCelsius: r?.temperature_deviation ?? null
      },
      JSON.stringify(raw),
      true
    )
    const score = r?.score ?? null
    return score === null ? base : { ...base, recoveryScore: score, providerScoreScale: "OuraScore0To100" }
  })
}
