/**
 * The WHOOP Developer API v2 simulator (provider reference §4): an ORY-Hydra-like OAuth 2.0
 * server (body client credentials, `state` of at least 8 characters, refresh tokens only with
 * `offline`, rotation with reuse detection), revoke, profile and body measurement, the cycle,
 * recovery, sleep and workout collections (newest first, `limit` ≤ 25, `nextToken` →
 * `next_token`) and by-id routes, per-client rate limits, and a signed-webhook sender.
 *
 * Paths under B: `GET|POST /oauth/oauth2/auth`, `POST /oauth/oauth2/token`, and under
 * `/developer`: `DELETE /v2/user/access`, `GET /v2/user/profile/basic`,
 * `GET /v2/user/measurement/body`, `GET /v2/cycle`, `GET /v2/cycle/{id}`,
 * `GET /v2/cycle/{id}/recovery`, `GET /v2/cycle/{id}/sleep`, `GET /v2/recovery`,
 * `GET /v2/activity/sleep`, `GET /v2/activity/sleep/{uuid}`, `GET /v2/activity/workout`,
 * `GET /v2/activity/workout/{uuid}`.
 *
 * Model: a cycle runs from one sleep onset to the next (WHOOP's definition); the current cycle
 * has no `end` and stays `PENDING_SCORE` without `score`; sleeps, naps and recoveries are
 * `PENDING_SCORE` for 30 minutes after waking, workouts for 15 minutes after they end. Choices
 * where WHOOP is undocumented (Hydra behaviour assumed): refreshing revokes the previous access
 * token; presenting a spent refresh token revokes the whole grant; a missing scope answers 401
 * (the API declares no 403); `redirect_uri` schemes are not restricted.
 */
import { HttpRouter } from "@effect/platform"
import { HttpServerResponse as Response } from "@effect/platform"
import type { HttpServerResponse } from "@effect/platform"
import type { HttpClient } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { assemble } from "../core/App.js"
import type { Delivery } from "../core/Deliver.js"
import { deliver } from "../core/Deliver.js"
import type { AccessRecord, OAuth2State } from "../core/OAuth2.js"
import {
  authenticate,
  bodyClient,
  challengePattern,
  expireAll,
  freshOAuth2State,
  issueCode,
  issueTokens,
  listUsers,
  newGrantId,
  pkceMatches,
  prune,
  redeemCode,
  rememberUser,
  revokeWhere
} from "../core/OAuth2.js"
import type { Simulator, SimulatorControl, SimulatorOptions } from "../core/Options.js"
import {
  clamp,
  DAY_MS,
  localDayOf,
  localMidnight,
  offsetString,
  providerUserIds,
  Rng,
  round,
  sha256,
  sha256Hex,
  tokenKey,
  userTraits,
  uuidFrom
} from "../core/Random.js"
import type { ProviderStyle, SimRequestShape } from "../core/Request.js"
import { handle } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"

export const WHOOP_SCOPES: ReadonlyArray<string> = [
  "offline",
  "read:recovery",
  "read:cycles",
  "read:workout",
  "read:sleep",
  "read:profile",
  "read:body_measurement"
]

export type WhoopEventType =
  | "workout.updated"
  | "workout.deleted"
  | "sleep.updated"
  | "sleep.deleted"
  | "recovery.updated"
  | "recovery.deleted"

const ACCESS_TTL_SECONDS = 3600
const CODE_TTL_MS = 10 * 60_000
const MINUTE_LIMIT = 100
const DAY_LIMIT = 10_000
const MAX_LIMIT = 25
const DEFAULT_LIMIT = 10
const SLEEP_PENDING_MS = 30 * 60_000
const WORKOUT_PENDING_MS = 15 * 60_000

export interface WhoopControl extends SimulatorControl {
  /**
   * Sends a v2 webhook (`{user_id, id, type, trace_id}`) signed with the client's secret.
   * `undefined` when the user has revoked the client (WHOOP stops webhooks then).
   */
  readonly sendWebhook: (
    url: string,
    event: {
      readonly userId: number
      readonly type: WhoopEventType
      readonly id: string
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** The newest visible record of a kind for a user, as the API would return it. */
  readonly latest: (
    userId: number,
    kind: "cycle" | "sleep" | "recovery" | "workout"
  ) => Record<string, unknown> | undefined
  /**
   * Every visible record of a kind that a collection query with `start`/`end` (ms; `end`
   * defaults to now) would page through, newest first, as the API would return them.
   */
  readonly records: (
    userId: number,
    kind: "cycle" | "sleep" | "recovery" | "workout",
    range?: { readonly start?: number | undefined; readonly end?: number | undefined }
  ) => ReadonlyArray<Record<string, unknown>>
}

export type WhoopSimulator = Simulator<WhoopControl>

/** Base64 HMAC-SHA256 of `timestamp + body` keyed by the client secret (no separator). */
export const whoopSignature = (clientSecret: string, timestamp: string, body: string): string =>
  crypto.createHmac("sha256", clientSecret).update(timestamp + body).digest("base64")

const hydraError = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  json({ error, error_description: description, status_code: status }, status, headers)

const RATE_LIMIT_HEADER = `${MINUTE_LIMIT}, ${MINUTE_LIMIT};window=60, ${DAY_LIMIT};window=86400`

const tooMany = (retryAfterSeconds: number, remaining = 0) =>
  hydraError(429, "too_many_requests", "Rate limit exceeded", {
    "retry-after": String(retryAfterSeconds),
    "x-ratelimit-limit": RATE_LIMIT_HEADER,
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": String(retryAfterSeconds)
  })

const style: ProviderStyle = {
  error: (status, code, message) => hydraError(status, code, message),
  expiredToken: () => hydraError(401, "invalid_token", "Token expired. The access token expired."),
  rateLimited: (seconds) => tooMany(seconds)
}

const GRANT_ERROR = "The provided authorization grant (e.g., authorization code, resource owner credentials) or " +
  "refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization " +
  "request, or was issued to another client."

// ---- synthetic data ----

interface Rec {
  readonly startMs: number
  /** Undefined while in progress (the current cycle). */
  readonly endMs: number | undefined
  readonly id: string
  readonly body: Record<string, unknown>
}

type Kind = "cycle" | "sleep" | "recovery" | "workout"

const KIND_CODE = { sleep: "1", nap: "2", workout: "3" } as const

const iso = (ms: number) => new Date(ms).toISOString()

const sports = [
  { name: "running", distance: true, altitude: true },
  { name: "cycling", distance: true, altitude: true },
  { name: "walking", distance: true, altitude: true },
  { name: "swimming", distance: true, altitude: false },
  { name: "weightlifting", distance: false, altitude: false },
  { name: "functional-fitness", distance: false, altitude: false },
  { name: "yoga", distance: false, altitude: false }
] as const

const cycleBase = (userId: number) =>
  (100_000 + (sha256("whoop-cycle", String(userId)).readUInt32BE(0) % 900_000)) * 100_000

const idCheck = (userId: number) => sha256Hex("whoop-id", String(userId)).slice(0, 4)

const eventUuid = (userId: number, day: number, kind: keyof typeof KIND_CODE, index: number) =>
  uuidFrom(
    sha256Hex("whoop-uuid", String(userId), String(day), kind, String(index)),
    `${KIND_CODE[kind]}${index.toString(16)}${day.toString(16).padStart(6, "0")}${idCheck(userId)}`
  )

/** Day, kind and index embedded in a simulator UUID, for by-id lookups. */
const parseUuid = (id: string) => {
  const m = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-([123])([0-9a-f])([0-9a-f]{6})([0-9a-f]{4})$/.exec(
    id
  )
  if (m === null) return undefined
  const kind = m[1] === "1" ? "sleep" : m[1] === "2" ? "nap" : "workout"
  return { kind, index: parseInt(m[2]!, 16), day: parseInt(m[3]!, 16) } as const
}

/** The physiology of one local day: the night's sleep ending that morning, an optional nap, workouts. */
const dayPlan = (seed: string, userId: number, day: number) => {
  const { zone } = userTraits("whoop", String(userId))
  const midnight = localMidnight(day, zone.offsetMinutes)
  const r = new Rng("whoop-day", seed, String(userId), String(day))
  const onset = (d: number) => {
    const rr = new Rng("whoop-onset", seed, String(userId), String(d))
    return localMidnight(d, zone.offsetMinutes) - 2 * 3_600_000 + rr.int(0, 7200) * 1000 + rr.int(0, 999)
  }
  const wake = midnight + 6 * 3_600_000 + r.int(0, 9000) * 1000 + r.int(0, 999)
  const nap = r.chance(0.25)
    ? (() => {
      const start = midnight + 14 * 3_600_000 + r.int(0, 3600) * 1000
      return { start, end: start + r.int(20, 60) * 60_000 }
    })()
    : undefined
  const count = r.next() < 0.35 ? 0 : r.next() < 0.7 ? 1 : 2
  const workouts = Array.from({ length: count }, (_, i) => {
    const windowStart = midnight + (i === 0 ? 7 : 16) * 3_600_000
    const start = Math.max(windowStart + r.int(0, 3 * 3600) * 1000, wake + 30 * 60_000)
    return { start, end: start + r.int(20, 90) * 60_000, sport: r.pick(sports), index: i }
  })
  return { zone, onset: onset(day), nextOnset: onset(day + 1), wake, nap, workouts }
}

const nameParts = (name: string) => {
  const parts = name.split(/[\s._-]+/).filter((p) => p !== "")
  const cap = (p: string) => p.charAt(0).toUpperCase() + p.slice(1)
  return {
    first: cap(parts[0] ?? "Sandbox"),
    last: cap(parts.slice(1).join(" ") || "User")
  }
}

// ---- the simulator ----

export const makeWhoopSimulator = (options: SimulatorOptions): WhoopSimulator => {
  const core = new SimulatorCore<OAuth2State>("WHOOP", "whoop", options, freshOAuth2State)
  const seed = core.seed

  const sleepRecord = (userId: number, day: number, nowMs: number, which: "sleep" | "nap"): Rec | undefined => {
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

  const recoveryRecord = (userId: number, day: number, nowMs: number): Rec | undefined => {
    const sleep = sleepRecord(userId, day, nowMs, "sleep")
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

  const workoutRecords = (userId: number, day: number, nowMs: number): ReadonlyArray<Rec> =>
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

  const cycleRecord = (userId: number, day: number, nowMs: number): Rec | undefined => {
    const plan = dayPlan(seed, userId, day)
    if (plan.onset > nowMs) return undefined
    const current = plan.nextOnset > nowMs
    const r = new Rng("whoop-cycle", seed, String(userId), String(day))
    const id = cycleBase(userId) + day
    const created = plan.onset + r.int(60, 300) * 1000
    const strain = clamp(r.float(4, 14, 4) + plan.workouts.length * r.float(1, 3, 4), 0, 21)
    return {
      startMs: plan.onset,
      endMs: current ? undefined : plan.nextOnset,
      id: String(id),
      body: {
        id,
        user_id: userId,
        created_at: iso(created),
        updated_at: iso(current ? nowMs : plan.nextOnset + r.int(60, 300) * 1000),
        start: iso(plan.onset),
        ...(current ? {} : { end: iso(plan.nextOnset) }),
        timezone_offset: offsetString(plan.zone.offsetMinutes),
        score_state: current ? "PENDING_SCORE" : "SCORED",
        ...(current ? {} : {
          score: {
            strain: round(strain, 4),
            kilojoule: round(r.float(6000, 8000, 3) + strain * r.float(100, 250, 3), 3),
            average_heart_rate: r.int(55, 80),
            max_heart_rate: r.int(120, 190)
          }
        })
      }
    }
  }

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
      ...(more ? { next_token: Buffer.from(`${last.startMs}:${last.id}`).toString("base64url") } : {})
    }
  }

  // ---- OAuth ----

  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) {
      return errorPage("WHOOP", "invalid_client: Client authentication failed (unknown client).")
    }
    const redirectUri = q.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) {
      return errorPage("WHOOP", "invalid_request: The request is missing a valid 'redirect_uri' parameter.")
    }
    const state = q.get("state")
    if (q.get("response_type") !== "code") {
      return redirectWith(redirectUri, {
        error: "unsupported_response_type",
        error_description: "The authorization server does not support obtaining a token using this method.",
        state
      })
    }
    if (state === null || state.length < 8) {
      return redirectWith(redirectUri, {
        error: "invalid_state",
        error_description: "The state is missing or does not have enough characters and is therefore considered too " +
          "weak. Request parameter 'state' must be at least be 8 characters long to ensure sufficient entropy.",
        state
      })
    }
    const scopes = [...new Set((q.get("scope") ?? "").split(/[\s+]+/).filter((s) => s !== ""))]
    const unknown = scopes.filter((s) => !WHOOP_SCOPES.includes(s))
    if (unknown.length > 0) {
      return redirectWith(redirectUri, {
        error: "invalid_scope",
        error_description: `The requested scope is invalid, unknown, or malformed: ${unknown.join(" ")}`,
        state
      })
    }
    const challenge = q.get("code_challenge")
    const method = q.get("code_challenge_method") ?? "plain"
    if (challenge !== null && (!challengePattern.test(challenge) || (method !== "S256" && method !== "plain"))) {
      return redirectWith(redirectUri, {
        error: "invalid_request",
        error_description: "The PKCE code challenge or method is invalid.",
        state
      })
    }
    if (req.method === "GET") {
      return consentPage({
        providerName: "WHOOP",
        clientId,
        action: selfUrl(core, req),
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) return errorPage("WHOOP", "decision must be approve or deny")
    if (consent.decision === "deny") {
      return redirectWith(redirectUri, {
        error: "access_denied",
        error_description: "The resource owner or authorization server denied the request.",
        state
      })
    }
    const userId = String(providerUserIds.whoop(consent.user))
    const s = core.state
    rememberUser(s, userId, consent.user)
    const scope = consent.granted.join(" ")
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope,
      // plain challenges are stored as the S256 of themselves, so one check serves both
      challenge: challenge === null
        ? null
        : method === "plain"
        ? crypto.createHash("sha256").update(challenge).digest("base64url")
        : challenge,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, scope, state })
  }

  const tokenBody = (issued: { accessToken: string; refreshToken: string | null; scope: string }) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    ...(issued.refreshToken === null ? {} : { refresh_token: issued.refreshToken }),
    scope: issued.scope,
    token_type: "bearer"
  })

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return hydraError(
        401,
        "invalid_client",
        "Client authentication failed (e.g., unknown client, no client authentication included, or unsupported " +
          "authentication method)."
      )
    }
    const clientId = client.id
    req.identify({ clientId })
    const s = core.state
    const now = core.nowMs()
    const grantType = req.form.get("grant_type")
    if (grantType === "authorization_code") {
      const code = req.form.get("code") ?? ""
      const record = redeemCode(s, code, now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return hydraError(400, "invalid_grant", GRANT_ERROR)
      }
      if (record.redirectUri !== null && req.form.get("redirect_uri") !== record.redirectUri) {
        return hydraError(400, "invalid_grant", GRANT_ERROR)
      }
      if (record.challenge !== null) {
        const verifier = req.form.get("code_verifier")
        if (!pkceMatches(record.challenge, verifier)) {
          return hydraError(400, "invalid_grant", "The PKCE code challenge did not match the code verifier.")
        }
      }
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        record.scope.split(" ").includes("offline")
      )
      core.commit()
      req.identify({ userId: record.userId })
      return json(tokenBody(issued))
    }
    if (grantType === "refresh_token") {
      const key = tokenKey(req.form.get("refresh_token") ?? "")
      const record = s.refresh[key]
      if (record === undefined || record.clientId !== clientId) return hydraError(400, "invalid_grant", GRANT_ERROR)
      req.identify({ userId: record.userId })
      if (record.usedAt !== null) {
        // reuse of a rotated refresh token: treat the grant as stolen
        revokeWhere(s, (r) => r.grantId === record.grantId)
        core.commit()
        return hydraError(400, "invalid_grant", GRANT_ERROR)
      }
      record.usedAt = now
      for (const [k, a] of Object.entries(s.access)) if (a.grantId === record.grantId) delete s.access[k]
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      prune(s, now)
      core.commit()
      return json(tokenBody(issued))
    }
    return hydraError(
      400,
      "unsupported_grant_type",
      "The authorization grant type is not supported by the authorization server."
    )
  }

  // ---- API ----

  const api = (
    req: SimRequestShape,
    scope: string | undefined,
    f: (record: AccessRecord, userId: number) => HttpServerResponse.HttpServerResponse
  ): HttpServerResponse.HttpServerResponse => {
    const s = core.state
    const now = core.nowMs()
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1]
    const auth = authenticate(s, bearer, now)
    switch (auth._tag) {
      case "Missing":
        return hydraError(401, "request_unauthorized", "The request could not be authorized: no bearer token.")
      case "Invalid":
        return hydraError(
          401,
          "invalid_token",
          "Token is inactive because it is malformed, expired or otherwise invalid."
        )
      case "Expired":
        return style.expiredToken(req)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    const minute = core.rates.hit(`minute:${record.clientId}`, 60_000, MINUTE_LIMIT, now)
    const day = core.rates.hit(`day:${record.clientId}`, DAY_MS, DAY_LIMIT, now)
    if (minute.limited || day.limited) {
      return tooMany(Math.max(minute.limited ? minute.resetSeconds : 0, day.limited ? day.resetSeconds : 0))
    }
    const headers = {
      "x-ratelimit-limit": RATE_LIMIT_HEADER,
      "x-ratelimit-remaining": String(Math.min(minute.remaining, day.remaining)),
      "x-ratelimit-reset": String(Math.min(minute.resetSeconds, day.resetSeconds))
    }
    if (scope !== undefined && !record.scope.split(" ").includes(scope)) {
      return hydraError(401, "insufficient_scope", `The access token was not granted the scope ${scope}.`, headers)
    }
    return Response.setHeaders(f(record, Number(record.userId)), headers)
  }

  const parseTime = (value: string | null): number | undefined | "invalid" => {
    if (value === null || value === "") return undefined
    const ms = Date.parse(value)
    return Number.isNaN(ms) ? "invalid" : ms
  }

  const collection = (kind: Kind, scope: string) => (req: SimRequestShape) =>
    api(req, scope, (_record, userId) => {
      const q = req.query
      const limitParam = q.get("limit")
      const limit = limitParam === null ? DEFAULT_LIMIT : Number(limitParam)
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        return hydraError(400, "invalid_request", `limit must be an integer between 1 and ${MAX_LIMIT}`)
      }
      const startMs = parseTime(q.get("start"))
      const endMs = parseTime(q.get("end"))
      if (startMs === "invalid" || endMs === "invalid") {
        return hydraError(400, "invalid_request", "start and end must be ISO 8601 date-times")
      }
      let cursor: { startMs: number; id: string } | undefined
      const nextToken = q.get("nextToken")
      if (nextToken !== null && nextToken !== "") {
        const m = /^(\d+):([0-9a-f-]+)$/.exec(Buffer.from(nextToken, "base64url").toString("utf8"))
        if (m === null) return hydraError(400, "invalid_request", "nextToken is invalid")
        cursor = { startMs: Number(m[1]), id: m[2]! }
      }
      const now = core.nowMs()
      return json(page(kind, userId, { startMs, endMs: endMs ?? now, cursor, limit }, now))
    })

  const notFound = (what: string) => hydraError(404, "not_found", `${what} not found`)

  const cycleDay = (userId: number, raw: string | undefined) => {
    if (raw === undefined || !/^\d{1,15}$/.test(raw)) return undefined
    const day = Number(raw) - cycleBase(userId)
    return day >= userTraits("whoop", String(userId)).memberSinceDay && day < 100_000 ? day : undefined
  }

  const byCycle =
    (scope: string, pick: (userId: number, day: number, now: number) => Rec | undefined, what: string) =>
    (
      req: SimRequestShape,
      params: Readonly<Record<string, string | undefined>>
    ) =>
      api(req, scope, (_record, userId) => {
        const day = cycleDay(userId, params["id"])
        const rec = day === undefined ? undefined : pick(userId, day, core.nowMs())
        return rec === undefined ? notFound(what) : json(rec.body)
      })

  const byUuid = (scope: string, kinds: ReadonlyArray<"sleep" | "nap" | "workout">, what: string) =>
  (
    req: SimRequestShape,
    params: Readonly<Record<string, string | undefined>>
  ) =>
    api(req, scope, (_record, userId) => {
      const id = params["id"] ?? ""
      const parsed = parseUuid(id)
      if (parsed === undefined || !kinds.includes(parsed.kind)) return notFound(what)
      if (parsed.day < userTraits("whoop", String(userId)).memberSinceDay) return notFound(what)
      const now = core.nowMs()
      const candidates = parsed.kind === "workout"
        ? workoutRecords(userId, parsed.day, now)
        : [sleepRecord(userId, parsed.day, now, parsed.kind)].filter((r): r is Rec => r !== undefined)
      const rec = candidates.find((r) => r.id === id)
      return rec === undefined ? notFound(what) : json(rec.body)
    })

  const profile = (req: SimRequestShape) =>
    api(req, "read:profile", (record, userId) => {
      const name = core.state.users[record.userId]?.name ?? "sandbox-user"
      const parts = nameParts(name)
      return json({
        user_id: userId,
        email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, ".").replace(/^\.|\.$/g, "") || "user"}@sandbox.example`,
        first_name: parts.first,
        last_name: parts.last
      })
    })

  const body = (req: SimRequestShape) =>
    api(req, "read:body_measurement", (record) => {
      const r = new Rng("whoop-body", seed, record.userId)
      return json({
        height_meter: r.float(1.55, 1.95, 4),
        weight_kilogram: r.float(55, 100, 4),
        max_heart_rate: r.int(170, 200)
      })
    })

  const revoke = (req: SimRequestShape) =>
    api(req, undefined, (record) => {
      revokeWhere(core.state, (r) => r.clientId === record.clientId && r.userId === record.userId)
      core.commit()
      return Response.empty({ status: 204 })
    })

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth/oauth2/auth", handle(authorizePage)),
    HttpRouter.post("/oauth/oauth2/auth", handle(authorizePage)),
    HttpRouter.post("/oauth/oauth2/token", handle(token)),
    HttpRouter.del("/developer/v2/user/access", handle(revoke)),
    HttpRouter.get("/developer/v2/user/profile/basic", handle(profile)),
    HttpRouter.get("/developer/v2/user/measurement/body", handle(body)),
    HttpRouter.get("/developer/v2/cycle", handle(collection("cycle", "read:cycles"))),
    HttpRouter.get("/developer/v2/cycle/:id", handle(byCycle("read:cycles", cycleRecord, "Cycle"))),
    HttpRouter.get("/developer/v2/cycle/:id/recovery", handle(byCycle("read:recovery", recoveryRecord, "Recovery"))),
    HttpRouter.get(
      "/developer/v2/cycle/:id/sleep",
      handle(byCycle("read:sleep", (u, d, n) => sleepRecord(u, d, n, "sleep"), "Sleep"))
    ),
    HttpRouter.get("/developer/v2/recovery", handle(collection("recovery", "read:recovery"))),
    HttpRouter.get("/developer/v2/activity/sleep", handle(collection("sleep", "read:sleep"))),
    HttpRouter.get("/developer/v2/activity/sleep/:id", handle(byUuid("read:sleep", ["sleep", "nap"], "Sleep"))),
    HttpRouter.get("/developer/v2/activity/workout", handle(collection("workout", "read:workout"))),
    HttpRouter.get("/developer/v2/activity/workout/:id", handle(byUuid("read:workout", ["workout"], "Workout")))
  )

  const connected = (clientId: string, userId: string) => {
    const s = core.state
    return Object.values(s.access).some((r) => r.clientId === clientId && r.userId === userId) ||
      Object.values(s.refresh).some((r) => r.clientId === clientId && r.userId === userId && r.usedAt === null)
  }

  const control: WhoopControl = {
    ...baseControl(core, {
      resetGrants: () => core.cell.reset(),
      expireAccessTokens: () => {
        expireAll(core.state, core.nowMs())
        core.commit()
      },
      revokeUser: (userId) => {
        revokeWhere(core.state, (r) => r.userId === userId)
        core.commit()
      },
      users: () => listUsers(core.state)
    }),
    sendWebhook: (url, event) => {
      const client = core.client(event.clientId)
      if (!connected(client.clientId, String(event.userId))) return Effect.succeed(undefined)
      const payload = JSON.stringify({
        user_id: event.userId,
        id: event.id,
        type: event.type,
        trace_id: crypto.randomUUID()
      })
      const timestamp = String(core.nowMs())
      return deliver(url, payload, {
        "x-whoop-signature": whoopSignature(client.clientSecret, timestamp, payload),
        "x-whoop-signature-timestamp": timestamp
      })
    },
    latest: (userId, kind) => {
      const result = page(
        kind,
        userId,
        { startMs: undefined, endMs: core.nowMs(), cursor: undefined, limit: 1 },
        core.nowMs()
      )
      return result.records[0]
    },
    records: (userId, kind, range) =>
      page(
        kind,
        userId,
        {
          startMs: range?.start,
          endMs: range?.end ?? core.nowMs(),
          cursor: undefined,
          limit: Number.POSITIVE_INFINITY
        },
        core.nowMs()
      ).records
  }

  return assemble(core, style, routes, control)
}
