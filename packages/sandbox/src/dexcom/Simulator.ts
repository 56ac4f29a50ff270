/**
 * The Dexcom Developer API simulator (OAuth on /v2, data on /v3; provider reference §5): login
 * page with `scope=offline_access` only, token endpoint with body client credentials and
 * rotating refresh tokens, and the v3 `egvs`, `events`, `calibrations`, `devices` and
 * `dataRange` endpoints with their envelope, the 30-day window rule and the retrospective delay.
 * Dexcom has no revoke endpoint and no webhooks, so neither does the simulator.
 *
 * Paths under B: `GET|POST /v2/oauth2/login`, `POST /v2/oauth2/token`,
 * `GET /v3/users/self/{egvs|events|calibrations|devices|dataRange}`.
 *
 * Model: one EGV every 5 minutes (about 1% with a null value), a daily rhythm plus meal
 * excursions, clamped to 40–400 mg/dL (`status` `low`/`high` at the bounds); carbs events at
 * meals, insulin for some users, occasional exercise; sparse calibrations. Data appears one
 * hour after its `systemTime` (the US delay). Choices where Dexcom is undocumented: windows are
 * `startDate` inclusive, `endDate` exclusive; records come newest first; event `value` is a
 * string as the schema says; errors are `{"error","error_description"}`; codes live 10 minutes;
 * `SandboxUser7` has a G7, `SandboxUser1`–`6` a G6, other names either.
 */
import { HttpRouter } from "@effect/platform"
import type { HttpServerResponse } from "@effect/platform"
import { assemble } from "../core/App.js"
import type { AccessRecord, OAuth2State } from "../core/OAuth2.js"
import {
  authenticate,
  bodyClient,
  expireAll,
  freshOAuth2State,
  issueCode,
  issueTokens,
  listUsers,
  newGrantId,
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
  sha256Hex,
  tokenKey,
  userTraits,
  uuidFrom
} from "../core/Random.js"
import type { ProviderStyle, SimRequestShape } from "../core/Request.js"
import { handle } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"

export type DexcomSimulator = Simulator<SimulatorControl>

const ACCESS_TTL_SECONDS = 7200
const CODE_TTL_MS = 10 * 60_000
const RATE_LIMIT = 60_000
const HOUR_MS = 3_600_000
const SLOT_MS = 300_000
const MAX_WINDOW_MS = 30 * DAY_MS
const DATA_DELAY_MS = HOUR_MS
const SESSION_MS = 10 * DAY_MS

export const DEXCOM_SANDBOX_USERS: ReadonlyArray<string> = [1, 2, 3, 4, 5, 6, 7].map((n) => `SandboxUser${n}`)

const dexcomError = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  json({ error, error_description: description }, status, headers)

const style: ProviderStyle = {
  error: (status, code, message) => dexcomError(status, code, message),
  expiredToken: () => dexcomError(401, "invalid_token", "Access token expired"),
  rateLimited: (seconds) => dexcomError(429, "rate_limited", "Too many requests", { "retry-after": String(seconds) })
}

// ---- synthetic data ----

type Generation = "g6" | "g7"
type DisplayDevice = "iOS" | "android" | "receiver"

const g7Users = new Set([providerUserIds.dexcom("SandboxUser7")])
const g6Users = new Set(DEXCOM_SANDBOX_USERS.slice(0, 6).map((n) => providerUserIds.dexcom(n)))

const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("dexcom", userId)
  const r = new Rng("dexcom-traits", seed, userId)
  const generation: Generation = g7Users.has(userId) ? "g7" : g6Users.has(userId) ? "g6" : r.pick(["g6", "g7"])
  const displayDevice: DisplayDevice = r.next() < 0.15 ? "receiver" : r.pick(["iOS", "android"])
  return {
    ...base,
    generation,
    displayDevice,
    insulin: r.chance(0.5),
    baseline: r.int(95, 150),
    rhythm: r.int(10, 30),
    rhythmPhase: r.next(),
    slotPhaseMs: r.int(0, 299) * 1000,
    start: localMidnight(base.memberSinceDay, base.zone.offsetMinutes)
  }
}

type Traits = ReturnType<typeof traitsOf>

/** A local day's meals, its level shift, and whether a night-time low comes (so readings span the range). */
const dayPlan = (seed: string, userId: string, t: Traits, day: number) => {
  const r = new Rng("dexcom-meals", seed, userId, String(day))
  const midnight = localMidnight(day, t.zone.offsetMinutes)
  const meals = [8, 12.5, 19].map((hour, i) => ({
    index: i,
    at: midnight + hour * HOUR_MS + r.int(-45, 45) * 60_000,
    carbs: r.int(20, 90),
    rise: r.int(30, 130),
    tau: r.int(40, 70) * 60_000,
    insulin: r.float(2, 10, 1)
  }))
  const shift = r.int(-20, 25)
  const low = r.chance(0.15) ? { at: midnight + 3 * HOUR_MS + r.int(0, 120) * 60_000, depth: r.int(40, 80) } : undefined
  return { midnight, meals, shift, low }
}

/** Generates the records of one user; caches per-day plans for the span of one request. */
class Glucose {
  readonly t: Traits
  private readonly planCache = new Map<number, ReturnType<typeof dayPlan>>()
  constructor(readonly seed: string, readonly userId: string) {
    this.t = traitsOf(seed, userId)
  }
  planOf(day: number) {
    let found = this.planCache.get(day)
    if (found === undefined) {
      found = dayPlan(this.seed, this.userId, this.t, day)
      this.planCache.set(day, found)
    }
    return found
  }
  mealsOf(day: number) {
    return this.planOf(day).meals
  }
  /** The slot instants are `slotPhaseMs` past multiples of five minutes. */
  firstSlotAtOrAfter(ms: number): number {
    const k = Math.ceil((ms - this.t.slotPhaseMs) / SLOT_MS)
    return k * SLOT_MS + this.t.slotPhaseMs
  }
  /** mg/dL before clamping and gaps. */
  raw(ms: number): number {
    const t = this.t
    const day = localDayOf(ms, t.zone.offsetMinutes)
    const plan = this.planOf(day)
    // the day's level shift blends in over the first hours so midnight has no step
    const previous = this.planOf(day - 1).shift
    const blend = clamp((ms - plan.midnight) / (4 * HOUR_MS), 0, 1)
    let value = t.baseline + previous + (plan.shift - previous) * blend +
      t.rhythm * Math.sin(2 * Math.PI * (ms / DAY_MS + t.rhythmPhase))
    for (const d of [day - 1, day]) {
      for (const meal of this.mealsOf(d)) {
        const dt = ms - meal.at
        if (dt > 0 && dt < 8 * meal.tau) value += meal.rise * (dt / meal.tau) * Math.exp(1 - dt / meal.tau)
      }
    }
    if (plan.low !== undefined) {
      const dt = (ms - plan.low.at) / HOUR_MS
      value -= plan.low.depth * Math.exp(-dt * dt)
    }
    const noise = new Rng("dexcom-noise", this.seed, this.userId, String(ms)).float(-6, 6, 3)
    return value + noise
  }
  // Each reading's trend needs the slot before it too: values are memoised per instance.
  private readonly values = new Map<number, number | null>()
  private readonly transmitterIds = new Map<number, string>()
  value(ms: number): number | null {
    const known = this.values.get(ms)
    if (known !== undefined) return known
    const value = new Rng("dexcom-gap", this.seed, this.userId, String(ms)).chance(0.01)
      ? null
      : Math.round(clamp(this.raw(ms), 40, 400))
    this.values.set(ms, value)
    return value
  }
  transmitter(ms: number) {
    const session = Math.floor((ms - this.t.start) / SESSION_MS)
    // a G7 sensor has its own transmitter; a G6 transmitter lasts about nine sessions
    const unit = this.t.generation === "g7" ? session : Math.floor(session / 9)
    let transmitterId = this.transmitterIds.get(unit)
    if (transmitterId === undefined) {
      transmitterId = sha256Hex("dexcom-transmitter", this.userId, String(unit))
      this.transmitterIds.set(unit, transmitterId)
    }
    return {
      transmitterId,
      transmitterTicks: Math.floor((ms - (this.t.start + session * SESSION_MS)) / 1000)
    }
  }
  times(ms: number) {
    const system = `${new Date(ms).toISOString().slice(0, 19)}+00:00`
    const offset = this.t.zone.offsetMinutes
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19)
    return {
      systemTime: system,
      displayTime: this.t.displayDevice === "receiver" ? local : `${local}${offsetString(offset)}`
    }
  }
  common(ms: number) {
    return {
      ...this.transmitter(ms),
      transmitterGeneration: this.t.generation,
      displayDevice: this.t.displayDevice
    }
  }
  egv(ms: number) {
    const value = this.value(ms)
    const previous = this.value(ms - SLOT_MS)
    const rate = value === null || previous === null ? null : round((value - previous) / 5, 1)
    const trend = rate === null
      ? "notComputable"
      : rate > 3
      ? "doubleUp"
      : rate > 2
      ? "singleUp"
      : rate > 1
      ? "fortyFiveUp"
      : rate >= -1
      ? "flat"
      : rate >= -2
      ? "fortyFiveDown"
      : rate >= -3
      ? "singleDown"
      : "doubleDown"
    const { transmitterId, transmitterTicks } = this.transmitter(ms)
    return {
      recordId: uuidFrom(sha256Hex("dexcom-egv", this.userId, String(ms))),
      ...this.times(ms),
      transmitterId,
      transmitterTicks,
      value,
      status: value === null ? null : value <= 40 ? "low" : value >= 400 ? "high" : null,
      trend: value === null ? null : trend,
      trendRate: rate,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      displayDevice: this.t.displayDevice,
      transmitterGeneration: this.t.generation
    }
  }
  events(day: number): ReadonlyArray<{ readonly ms: number; readonly body: Record<string, unknown> }> {
    const out: Array<{ ms: number; body: Record<string, unknown> }> = []
    const event = (
      ms: number,
      key: string,
      eventType: string,
      eventSubType: string | null,
      value: string,
      unit: string
    ) =>
      out.push({
        ms,
        body: {
          recordId: uuidFrom(sha256Hex("dexcom-event", this.userId, String(day), key)),
          ...this.times(ms),
          eventStatus: "created",
          eventType,
          eventSubType,
          value,
          unit,
          ...this.common(ms)
        }
      })
    for (const meal of this.mealsOf(day)) {
      event(meal.at - 5 * 60_000, `carbs-${meal.index}`, "carbs", null, String(meal.carbs), "grams")
      if (this.t.insulin) {
        event(meal.at - 10 * 60_000, `bolus-${meal.index}`, "insulin", "fastActing", String(meal.insulin), "units")
      }
    }
    const r = new Rng("dexcom-day-events", this.seed, this.userId, String(day))
    const midnight = localMidnight(day, this.t.zone.offsetMinutes)
    const basal = r.float(10, 30, 1)
    if (this.t.insulin) event(midnight + 22 * HOUR_MS, "basal", "insulin", "longActing", String(basal), "units")
    if (r.chance(0.3)) {
      event(
        midnight + 18 * HOUR_MS + r.int(0, 60) * 60_000,
        "exercise",
        "exercise",
        r.pick(["light", "medium", "heavy"]),
        String(r.int(20, 60)),
        "minutes"
      )
    }
    return out.sort((a, b) => a.ms - b.ms)
  }
  calibrations(day: number): ReadonlyArray<{ readonly ms: number; readonly body: Record<string, unknown> }> {
    const r = new Rng("dexcom-calibration", this.seed, this.userId, String(day))
    if (!r.chance(this.t.generation === "g6" ? 0.3 : 0.1)) return []
    const ms = localMidnight(day, this.t.zone.offsetMinutes) + 7 * HOUR_MS + r.int(0, 59) * 60_000
    const { transmitterId, transmitterTicks } = this.transmitter(ms)
    return [{
      ms,
      body: {
        recordId: uuidFrom(sha256Hex("dexcom-calibration", this.userId, String(day))),
        ...this.times(ms),
        unit: "mg/dL",
        value: Math.round(clamp(this.raw(ms) + r.int(-8, 8), 40, 400)),
        displayDevice: this.t.displayDevice,
        transmitterId,
        transmitterTicks,
        transmitterGeneration: this.t.generation
      }
    }]
  }
}

const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/

/** A Dexcom date parameter: ISO 8601 without offset, read as UTC. */
const parseDexcomDate = (value: string | null): number | undefined => {
  if (value === null || !dateTimePattern.test(value)) return undefined
  const ms = Date.parse(`${value}Z`)
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== value.slice(0, 19)) return undefined
  return ms
}

const plainTime = (ms: number) => new Date(ms).toISOString().slice(0, 19)

export type DexcomRecordKind = "egv" | "event" | "calibration"

/** A request window clipped to what exists: from the user's first day to the newest delayed data. */
const clip = (glucose: Glucose, start: number, end: number, latestMs: number) => ({
  from: Math.max(start, glucose.t.start),
  to: Math.min(end, latestMs + 1)
})

const daysDescending = (glucose: Glucose, from: number, to: number) => {
  const offset = glucose.t.zone.offsetMinutes
  const days: Array<number> = []
  for (let day = localDayOf(to, offset); day >= localDayOf(from, offset); day--) days.push(day)
  return days
}

/** The records of a kind whose `systemTime` lies in [from, to), newest first. */
const recordsIn = (
  glucose: Glucose,
  kind: DexcomRecordKind,
  from: number,
  to: number
): Array<Record<string, unknown>> => {
  if (kind === "egv") {
    const records: Array<Record<string, unknown>> = []
    for (let ms = glucose.firstSlotAtOrAfter(from); ms < to; ms += SLOT_MS) records.push(glucose.egv(ms))
    return records.reverse()
  }
  return daysDescending(glucose, from, to).flatMap((day) =>
    (kind === "event" ? glucose.events(day) : glucose.calibrations(day))
      .filter((e) => e.ms >= from && e.ms < to)
      .reverse()
      .map((e) => e.body)
  )
}

/**
 * The records a v3 list endpoint (`egvs`, `events`, `calibrations`) answers for
 * `startDate`..`endDate` (ms; start inclusive, end exclusive) when the simulator's clock reads
 * `nowMs`: newest first, clipped to the user's first day and to the data delay. For assertions.
 */
export const dexcomRecords = (
  seed: string,
  userId: string,
  kind: DexcomRecordKind,
  range: { readonly start: number; readonly end: number },
  nowMs: number
): ReadonlyArray<Record<string, unknown>> => {
  const glucose = new Glucose(seed, userId)
  const w = clip(glucose, range.start, range.end, nowMs - DATA_DELAY_MS)
  return recordsIn(glucose, kind, w.from, w.to)
}

// ---- the simulator ----

export const makeDexcomSimulator = (options: SimulatorOptions): DexcomSimulator => {
  const core = new SimulatorCore<OAuth2State>("Dexcom", "dexcom", options, freshOAuth2State)

  const loginPage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) return errorPage("Dexcom", "Invalid client_id")
    const redirectUri = q.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) return errorPage("Dexcom", "Missing or invalid redirect_uri")
    const state = q.get("state")
    if (q.get("response_type") !== "code") {
      return redirectWith(redirectUri, { error: "unsupported_response_type", state })
    }
    if (q.get("scope") !== "offline_access") {
      return redirectWith(redirectUri, {
        error: "invalid_scope",
        error_description: "scope must be offline_access",
        state
      })
    }
    if (req.method === "GET") {
      return consentPage({
        providerName: "Dexcom",
        clientId,
        action: selfUrl(core, req),
        detail: "Scope: offline_access (EGVs, events, calibrations, devices, data range).",
        userSuggestions: DEXCOM_SANDBOX_USERS
      })
    }
    const consent = readConsent(req.form, ["offline_access"])
    if (consent.decision === undefined) return errorPage("Dexcom", "decision must be approve or deny")
    if (consent.decision === "deny") return redirectWith(redirectUri, { error: "access_denied", state })
    const userId = providerUserIds.dexcom(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope: "offline_access",
      challenge: null,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const tokenBody = (issued: { accessToken: string; refreshToken: string | null }) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    token_type: "Bearer",
    refresh_token: issued.refreshToken
  })

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return dexcomError(401, "invalid_client", "Client authentication failed")
    }
    const clientId = client.id
    req.identify({ clientId })
    const s = core.state
    const now = core.nowMs()
    const grantType = req.form.get("grant_type")
    if (grantType === "authorization_code") {
      const record = redeemCode(s, req.form.get("code") ?? "", now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return dexcomError(400, "invalid_grant", "Invalid or expired authorization code")
      }
      if (req.form.get("redirect_uri") !== record.redirectUri) {
        return dexcomError(400, "invalid_grant", "redirect_uri does not match the authorization request")
      }
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      core.commit()
      req.identify({ userId: record.userId })
      return json(tokenBody(issued))
    }
    if (grantType === "refresh_token") {
      const record = s.refresh[tokenKey(req.form.get("refresh_token") ?? "")]
      if (record === undefined || record.clientId !== clientId || record.usedAt !== null) {
        return dexcomError(400, "invalid_grant", "Invalid refresh token")
      }
      req.identify({ userId: record.userId })
      record.usedAt = now
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
    return dexcomError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
  }

  const api = (
    req: SimRequestShape,
    f: (record: AccessRecord, glucose: Glucose, latestMs: number) => HttpServerResponse.HttpServerResponse
  ) => {
    const now = core.nowMs()
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1]
    const auth = authenticate(core.state, bearer, now)
    switch (auth._tag) {
      case "Missing":
        return dexcomError(401, "invalid_token", "Missing bearer access token")
      case "Invalid":
        return dexcomError(401, "invalid_token", "Invalid access token")
      case "Expired":
        return style.expiredToken(req)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    const hit = core.rates.hit(record.clientId, HOUR_MS, RATE_LIMIT, now)
    if (hit.limited) return style.rateLimited(hit.resetSeconds)
    return f(record, new Glucose(core.seed, record.userId), now - DATA_DELAY_MS)
  }

  const envelope = (recordType: string, userId: string, records: ReadonlyArray<unknown>) =>
    json({ recordType, recordVersion: "3.0", userId, records })

  /** Validated [start, end) clipped to what exists; an error response otherwise. */
  const window = (req: SimRequestShape, glucose: Glucose, latestMs: number) => {
    const rawStart = req.query.get("startDate")
    const rawEnd = req.query.get("endDate")
    if (rawStart === null || rawEnd === null) {
      return dexcomError(400, "invalid_request", "startDate and endDate are required")
    }
    const start = parseDexcomDate(rawStart)
    const end = parseDexcomDate(rawEnd)
    if (start === undefined || end === undefined) {
      return dexcomError(
        400,
        "invalid_request",
        "startDate and endDate must be ISO 8601 date-times without a UTC offset, e.g. 2024-01-31T08:00:00"
      )
    }
    if (end <= start) return dexcomError(400, "invalid_request", "endDate must be after startDate")
    if (end - start > MAX_WINDOW_MS) {
      return dexcomError(
        400,
        "invalid_request",
        "The time window between startDate and endDate must not exceed 30 days"
      )
    }
    return clip(glucose, start, end, latestMs)
  }

  const list = (kind: DexcomRecordKind) => (req: SimRequestShape) =>
    api(req, (record, glucose, latestMs) => {
      const w = window(req, glucose, latestMs)
      if (!("from" in w)) return w
      return envelope(kind, record.userId, recordsIn(glucose, kind, w.from, w.to))
    })

  const devices = (req: SimRequestShape) =>
    api(req, (record, glucose, latestMs) => {
      const t = glucose.t
      const last = Math.max(t.start, glucose.firstSlotAtOrAfter(latestMs - SLOT_MS + 1))
      const at = glucose.times(last)
      const alert = (alertName: string, value: number | null, unit: string | null, snooze: number | null) => ({
        alertName,
        value,
        unit,
        snooze,
        enabled: true,
        systemTime: at.systemTime,
        displayTime: at.displayTime
      })
      return envelope("device", record.userId, [{
        lastUploadDate: at.systemTime,
        transmitterId: glucose.transmitter(last).transmitterId,
        transmitterGeneration: t.generation,
        displayDevice: t.displayDevice,
        displayApp: t.displayDevice === "receiver" ? "receiver" : t.generation === "g7" ? "G7" : "G6",
        alertSchedules: [{
          alertScheduleSettings: {
            alertScheduleName: "",
            isEnabled: true,
            isDefaultSchedule: true,
            startTime: "00:00",
            endTime: "00:00",
            daysOfWeek: ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
          },
          alertSettings: [
            alert("urgentLow", 55, "mg/dL", 30),
            alert("low", 70, "mg/dL", 15),
            alert("high", 250, "mg/dL", 120),
            alert("rise", 3, "mg/dL/min", null),
            alert("fall", 3, "mg/dL/min", null),
            alert("noReadings", 20, "minutes", null)
          ]
        }]
      }])
    })

  const dataRange = (req: SimRequestShape) =>
    api(req, (record, glucose, latestMs) => {
      const t = glucose.t
      const rawSync = req.query.get("lastSyncTime")
      let after = t.start - 1
      if (rawSync !== null) {
        const sync = parseDexcomDate(rawSync)
        if (sync === undefined) {
          return dexcomError(400, "invalid_request", "lastSyncTime must be an ISO 8601 date-time without a UTC offset")
        }
        after = Math.max(after, sync)
      }
      const point = (ms: number) => {
        const times = glucose.times(ms)
        return { systemTime: plainTime(ms), displayTime: times.displayTime.slice(0, 19) }
      }
      const range = (first: number | undefined, last: number | undefined) =>
        first === undefined || last === undefined || first > last
          ? undefined
          : { start: point(first), end: point(last) }
      // EGVs: the first slot after `after`, the last one available
      const firstEgv = glucose.firstSlotAtOrAfter(after + 1)
      const lastEgv = glucose.firstSlotAtOrAfter(latestMs - SLOT_MS + 1)
      const sparseRange = (of: (day: number) => ReadonlyArray<{ readonly ms: number }>) => {
        const offset = t.zone.offsetMinutes
        const lastDay = localDayOf(latestMs, offset)
        let first: number | undefined
        for (let day = localDayOf(Math.max(after, t.start), offset); day <= lastDay && first === undefined; day++) {
          first = of(day).find((e) => e.ms > after && e.ms <= latestMs)?.ms
        }
        let last: number | undefined
        for (let day = lastDay; day >= t.memberSinceDay && last === undefined && first !== undefined; day--) {
          last = [...of(day)].reverse().find((e) => e.ms > after && e.ms <= latestMs)?.ms
        }
        return range(first, last)
      }
      const calibrations = sparseRange((day) => glucose.calibrations(day))
      const egvRange = range(firstEgv, lastEgv)
      const events = sparseRange((day) => glucose.events(day))
      return json({
        recordType: "dataRange",
        recordVersion: "3.0",
        userId: record.userId,
        ...(calibrations === undefined ? {} : { calibrations }),
        ...(egvRange === undefined ? {} : { egvs: egvRange }),
        ...(events === undefined ? {} : { events })
      })
    })

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/v2/oauth2/login", handle(loginPage)),
    HttpRouter.post("/v2/oauth2/login", handle(loginPage)),
    HttpRouter.post("/v2/oauth2/token", handle(token)),
    HttpRouter.get("/v3/users/self/egvs", handle(list("egv"))),
    HttpRouter.get("/v3/users/self/events", handle(list("event"))),
    HttpRouter.get("/v3/users/self/calibrations", handle(list("calibration"))),
    HttpRouter.get("/v3/users/self/devices", handle(devices)),
    HttpRouter.get("/v3/users/self/dataRange", handle(dataRange))
  )

  const control: SimulatorControl = baseControl(core, {
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
  })

  return assemble(core, style, routes, control)
}
