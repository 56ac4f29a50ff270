/**
 * The WHOOP simulator's records: sleeps and naps, recoveries, workouts and cycles as the v2 API
 * returns them (pending until scored), and paging through them newest first with `next_token`.
 */
import { clamp, localDayOf, offsetString, Rng, round, userTraits } from "../core/Random.js"
import type { Kind, Rec } from "./Plan.js"
import { cycleBase, dayPlan, eventUuid, iso } from "./Plan.js"
import { CYCLE_PENDING_MS, SLEEP_PENDING_MS, WORKOUT_PENDING_MS } from "./Shapes.js"

/**
 * A page token as live WHOOP writes them: standard base64, padded with `=`, so it may hold `+`, `/`
 * and `=` and must be sent back percent-encoded.
 */
export const whoopNextToken = (last: { readonly startMs: number; readonly id: string }): string =>
  Buffer.from(`${last.startMs}:${last.id}`).toString("base64")

/**
 * The cursor of a page token, only when it is exactly one this simulator wrote: a token whose
 * `+` became a space, or whose padding was dropped, is refused (400), as a client must pass it back
 * unchanged.
 */
export const readWhoopNextToken = (token: string): { readonly startMs: number; readonly id: string } | undefined => {
  const bytes = Buffer.from(token, "base64")
  if (bytes.toString("base64") !== token) return undefined
  const m = /^(\d+):([0-9a-f-]+)$/.exec(bytes.toString("utf8"))
  return m === null ? undefined : { startMs: Number(m[1]), id: m[2]! }
}

/** A record made unreadable on purpose (`WhoopControl.malformRecords`): a field WHOOP always sends right, wrong. */
const malformedBody = (kind: Kind, body: Record<string, unknown>): Record<string, unknown> =>
  kind === "recovery" ? { ...body, score_state: 7 } : { ...body, start: "not a date-time" }

export const makeWhoopData = (core: { readonly seed: string }) => {
  const seed = core.seed
  /** `userId:kind:day` of the records served malformed (a fault, as `malformedJson` is for whole pages). */
  const malformed = new Set<string>()
  const served = (kind: Kind, userId: number, day: number, rec: Rec | undefined): Rec | undefined =>
    rec !== undefined && malformed.has(`${userId}:${kind}:${day}`)
      ? { ...rec, body: malformedBody(kind, rec.body) }
      : rec

  const sleepOf = (userId: number, day: number, nowMs: number, which: "sleep" | "nap"): Rec | undefined => {
    const plan = dayPlan(seed, userId, day)
    const span = which === "sleep" ? { start: plan.onset, end: plan.wake } : plan.nap
    if (span === undefined || span.end > nowMs) return undefined
    const id = eventUuid(userId, day, which, 0)
    const r = new Rng("whoop-sleep", seed, String(userId), String(day), which)
    const pending = nowMs < span.end + SLEEP_PENDING_MS
    const inBed = span.end - span.start
    const awake = Math.round(inBed * r.float(0.04, 0.14, 3))
    const asleep = inBed - awake
    const sws = Math.round(asleep * r.float(0.15, 0.25, 3))
    const rem = Math.round(asleep * r.float(0.18, 0.26, 3))
    const napMs = which === "sleep" && plan.nap !== undefined ? plan.nap.end - plan.nap.start : 0
    const created = span.end + r.int(60, 300) * 1000
    return {
      startMs: span.start,
      endMs: span.end,
      id,
      body: {
        id,
        cycle_id: cycleBase(userId) + day,
        v1_id: null,
        user_id: userId,
        created_at: iso(created),
        updated_at: iso(pending ? created : span.end + SLEEP_PENDING_MS),
        start: iso(span.start),
        end: iso(span.end),
        timezone_offset: offsetString(plan.zone.offsetMinutes),
        nap: which === "nap",
        score_state: pending ? "PENDING_SCORE" : "SCORED",
        ...(pending ? {} : {
          score: {
            stage_summary: {
              total_in_bed_time_milli: inBed,
              total_awake_time_milli: awake,
              total_no_data_time_milli: 0,
              total_light_sleep_time_milli: asleep - sws - rem,
              total_slow_wave_sleep_time_milli: sws,
              total_rem_sleep_time_milli: rem,
              sleep_cycle_count: which === "nap" ? r.int(0, 1) : r.int(3, 6),
              disturbance_count: which === "nap" ? r.int(0, 3) : r.int(5, 20)
            },
            sleep_needed: which === "nap"
              ? {
                baseline_milli: 0,
                need_from_sleep_debt_milli: 0,
                need_from_recent_strain_milli: 0,
                need_from_recent_nap_milli: 0
              }
              : {
                baseline_milli: r.int(420, 540) * 60_000,
                need_from_sleep_debt_milli: r.int(0, 90) * 60_000,
                need_from_recent_strain_milli: r.int(0, 45) * 60_000,
                need_from_recent_nap_milli: -napMs
              },
            respiratory_rate: r.float(13, 18, 6),
            sleep_performance_percentage: r.int(50, 100),
            sleep_consistency_percentage: r.int(40, 95),
            sleep_efficiency_percentage: round((asleep / inBed) * 100, 4)
          }
        })
      }
    }
  }

  const recoveryOf = (userId: number, day: number, nowMs: number): Rec | undefined => {
    const sleep = sleepOf(userId, day, nowMs, "sleep")
    if (sleep === undefined) return undefined
    const r = new Rng("whoop-recovery", seed, String(userId), String(day))
    const pending = sleep.body["score_state"] === "PENDING_SCORE"
    const { memberSinceDay } = userTraits("whoop", String(userId))
    return {
      startMs: sleep.startMs,
      endMs: sleep.endMs,
      id: String(cycleBase(userId) + day),
      body: {
        cycle_id: cycleBase(userId) + day,
        sleep_id: sleep.id,
        user_id: userId,
        created_at: sleep.body["created_at"],
        updated_at: sleep.body["updated_at"],
        score_state: pending ? "PENDING_SCORE" : "SCORED",
        ...(pending ? {} : {
          score: {
            user_calibrating: day - memberSinceDay < 4,
            recovery_score: r.int(1, 99),
            resting_heart_rate: r.int(45, 70),
            hrv_rmssd_milli: r.float(20, 120, 6),
            spo2_percentage: r.float(94, 99, 4),
            skin_temp_celsius: r.float(33, 35.5, 4)
          }
        })
      }
    }
  }

  const workoutsOf = (userId: number, day: number, nowMs: number): ReadonlyArray<Rec> =>
    dayPlan(seed, userId, day).workouts.flatMap((w) => {
      if (w.end > nowMs) return []
      const id = eventUuid(userId, day, "workout", w.index)
      const r = new Rng("whoop-workout", seed, String(userId), String(day), String(w.index))
      const pending = nowMs < w.end + WORKOUT_PENDING_MS
      const duration = w.end - w.start
      const avg = r.int(100, 160)
      const zones = [0.02, 0.1, 0.3, 0.33, 0.18].map((share) => Math.round(duration * share * r.float(0.8, 1.2, 3)))
      const zoneFive = Math.max(0, duration - zones.reduce((a, b) => a + b, 0))
      const created = w.end + r.int(60, 300) * 1000
      const zone = userTraits("whoop", String(userId)).zone
      return [{
        startMs: w.start,
        endMs: w.end,
        id,
        body: {
          id,
          v1_id: null,
          user_id: userId,
          created_at: iso(created),
          updated_at: iso(pending ? created : w.end + WORKOUT_PENDING_MS),
          start: iso(w.start),
          end: iso(w.end),
          timezone_offset: offsetString(zone.offsetMinutes),
          sport_name: w.sport.name,
          score_state: pending ? "PENDING_SCORE" : "SCORED",
          ...(pending ? {} : {
            score: {
              strain: r.float(2, 18, 6),
              average_heart_rate: avg,
              max_heart_rate: avg + r.int(10, 40),
              kilojoule: round((duration / 60_000) * r.float(15, 45, 3), 4),
              percent_recorded: r.float(95, 100, 2),
              ...(w.sport.distance ? { distance_meter: round((duration / 60_000) * r.float(80, 400, 2), 4) } : {}),
              ...(w.sport.altitude
                ? { altitude_gain_meter: r.float(0, 300, 4), altitude_change_meter: r.float(-50, 50, 4) }
                : {}),
              zone_durations: {
                zone_zero_milli: zones[0],
                zone_one_milli: zones[1],
                zone_two_milli: zones[2],
                zone_three_milli: zones[3],
                zone_four_milli: zones[4],
                zone_five_milli: zoneFive
              }
            }
          })
        }
      }]
    })

  /**
   * A cycle, as live v2 serves it: the running one is `SCORED` with `"end": null` and the strain
   * so far; a finished one is `PENDING_SCORE` with `"score": null` for a while after it ends, then
   * `SCORED`; a day without enough data (about one in 30) stays `UNSCORABLE` with `"score": null`.
   */
  const cycleOf = (userId: number, day: number, nowMs: number): Rec | undefined => {
    const plan = dayPlan(seed, userId, day)
    if (plan.onset > nowMs) return undefined
    const current = plan.nextOnset > nowMs
    const r = new Rng("whoop-cycle", seed, String(userId), String(day))
    const id = cycleBase(userId) + day
    const created = plan.onset + r.int(60, 300) * 1000
    const strain = clamp(r.float(4, 14, 4) + plan.workouts.length * r.float(1, 3, 4), 0, 21)
    const kilojoule = r.float(6000, 8000, 3) + strain * r.float(100, 250, 3)
    const averageHeartRate = r.int(55, 80)
    const maxHeartRate = r.int(120, 190)
    const unscorable = r.chance(1 / 30)
    const state = current ? "SCORED" : unscorable ? "UNSCORABLE" : nowMs < plan.nextOnset + CYCLE_PENDING_MS ?
      "PENDING_SCORE" :
      "SCORED"
    // the running strain and energy grow with the share of the cycle already lived
    const share = current ? clamp((nowMs - plan.onset) / (plan.nextOnset - plan.onset), 0, 1) : 1
    const scoredAt = current ? nowMs : plan.nextOnset + (state === "SCORED" ? CYCLE_PENDING_MS : r.int(60, 300) * 1000)
    return {
      startMs: plan.onset,
      endMs: current ? undefined : plan.nextOnset,
      id: String(id),
      body: {
        id,
        user_id: userId,
        created_at: iso(created),
        updated_at: iso(scoredAt),
        start: iso(plan.onset),
        end: current ? null : iso(plan.nextOnset),
        timezone_offset: offsetString(plan.zone.offsetMinutes),
        score_state: state,
        score: state === "SCORED"
          ? {
            strain: round(strain * share, 4),
            kilojoule: round(kilojoule * share, 3),
            average_heart_rate: averageHeartRate,
            max_heart_rate: current
              ? Math.round(averageHeartRate + (maxHeartRate - averageHeartRate) * share)
              : maxHeartRate
          }
          : null
      }
    }
  }

  const sleepRecord = (userId: number, day: number, nowMs: number, which: "sleep" | "nap") =>
    served("sleep", userId, day, sleepOf(userId, day, nowMs, which))
  const recoveryRecord = (userId: number, day: number, nowMs: number) =>
    served("recovery", userId, day, recoveryOf(userId, day, nowMs))
  const cycleRecord = (userId: number, day: number, nowMs: number) =>
    served("cycle", userId, day, cycleOf(userId, day, nowMs))
  const workoutRecords = (userId: number, day: number, nowMs: number): ReadonlyArray<Rec> =>
    workoutsOf(userId, day, nowMs).map((rec) => served("workout", userId, day, rec)!)

  /** Serves the records of a kind of the user's local day `daysAgo` days before now malformed. */
  const malformRecords = (userId: number, kind: Kind, daysAgo: number, nowMs: number) => {
    const { zone } = userTraits("whoop", String(userId))
    malformed.add(`${userId}:${kind}:${localDayOf(nowMs, zone.offsetMinutes) - daysAgo}`)
  }
  const mendRecords = () => malformed.clear()

  const recordsOfDay = (kind: Kind, userId: number, day: number, nowMs: number): ReadonlyArray<Rec> => {
    switch (kind) {
      case "cycle":
        return [cycleRecord(userId, day, nowMs)].filter((r): r is Rec => r !== undefined)
      case "recovery":
        return [recoveryRecord(userId, day, nowMs)].filter((r): r is Rec => r !== undefined)
      case "sleep":
        return [sleepRecord(userId, day, nowMs, "nap"), sleepRecord(userId, day, nowMs, "sleep")].filter(
          (r): r is Rec => r !== undefined
        )
      case "workout":
        return [...workoutRecords(userId, day, nowMs)].reverse()
    }
  }

  const endOf = (rec: Rec, nowMs: number) => rec.endMs ?? nowMs

  /** Newest-first records intersecting [startMs, endMs), after the cursor, at most `limit` plus whether more exist. */
  const page = (
    kind: Kind,
    userId: number,
    query: {
      readonly startMs: number | undefined
      readonly endMs: number
      readonly cursor: { readonly startMs: number; readonly id: string } | undefined
      readonly limit: number
    },
    nowMs: number
  ) => {
    const { zone, memberSinceDay } = userTraits("whoop", String(userId))
    const upper = Math.min(query.endMs, nowMs)
    const newest = localDayOf(upper, zone.offsetMinutes) + 1
    const oldest = Math.max(
      memberSinceDay,
      query.startMs === undefined ? memberSinceDay : localDayOf(query.startMs, zone.offsetMinutes) - 1
    )
    const out: Array<Rec> = []
    for (let day = newest; day >= oldest && out.length <= query.limit; day--) {
      for (const rec of recordsOfDay(kind, userId, day, nowMs)) {
        if (rec.startMs >= query.endMs) continue
        if (query.startMs !== undefined && endOf(rec, nowMs) < query.startMs) continue
        const c = query.cursor
        if (c !== undefined && !(rec.startMs < c.startMs || (rec.startMs === c.startMs && rec.id < c.id))) continue
        out.push(rec)
      }
    }
    out.sort((a, b) => b.startMs - a.startMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    const records = out.slice(0, query.limit)
    const last = records[records.length - 1]
    const more = out.length > query.limit && last !== undefined
    return {
      records: records.map((r) => r.body),
      ...(more ? { next_token: whoopNextToken(last) } : {})
    }
  }

  return { sleepRecord, recoveryRecord, workoutRecords, cycleRecord, page, malformRecords, mendRecords }
}

/** The record generators of one simulator. */
export type WhoopData = ReturnType<typeof makeWhoopData>
