/**
 * The Fitbit Web API simulator (legacy API, as in the provider reference §2): consent page and
 * OAuth 2.0 with Basic client auth and PKCE S256, rotating single-use refresh tokens with
 * Fitbit's short identical-replay window, revoke, profile, the daily activity summary in the
 * unit system of `Accept-Language`, per-user hourly rate limits, subscriptions, and helpers
 * that deliver signed notifications and subscriber verification requests.
 *
 * Paths under B: `GET|POST /oauth2/authorize`, `POST /oauth2/token`, `POST /oauth2/revoke`,
 * `GET /1/user/{-|id}/profile.json`, `GET /1/user/{-|id}/activities/date/{yyyy-MM-dd|today}.json`,
 * `POST|DELETE /1/user/{-|id}[/{collection}]/apiSubscriptions/{id}.json`,
 * `GET /1/user/{-|id}[/{collection}]/apiSubscriptions.json`.
 */
import { HttpRouter } from "@effect/platform"
import { HttpServerResponse as Response } from "@effect/platform"
import type { HttpServerResponse } from "@effect/platform"
import type { HttpClient } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { assemble } from "../core/App.js"
import { parseBasic, parseBearer } from "../core/Credentials.js"
import type { Delivery } from "../core/Deliver.js"
import { deliver } from "../core/Deliver.js"
import type { AccessRecord, OAuth2State } from "../core/OAuth2.js"
import {
  authenticate,
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
  formatDay,
  localDayOf,
  localMidnight,
  parseDay,
  providerUserIds,
  Rng,
  round,
  tokenKey,
  userTraits
} from "../core/Random.js"
import type { ProviderStyle, SimRequestShape } from "../core/Request.js"
import { handle } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"

export const FITBIT_SCOPES: ReadonlyArray<string> = [
  "activity",
  "cardio_fitness",
  "electrocardiogram",
  "heartrate",
  "irregular_rhythm_notifications",
  "location",
  "nutrition",
  "oxygen_saturation",
  "profile",
  "respiratory_rate",
  "settings",
  "sleep",
  "social",
  "temperature",
  "weight"
]

export const FITBIT_COLLECTIONS: ReadonlyArray<string> = ["activities", "body", "foods", "sleep", "userRevokedAccess"]

const ACCESS_TTL_SECONDS = 28_800
const CODE_TTL_MS = 10 * 60_000
/** Fitbit answers an identical refresh again until the new tokens are used; the span is not published. */
const REFRESH_REPLAY_MS = 120_000
const RATE_LIMIT = 150
const HOUR_MS = 3_600_000

export interface FitbitSubscription {
  /** `"user"` for a subscription to all collections (no collection in the path). */
  readonly collectionType: string
  readonly ownerId: string
  readonly ownerType: "user"
  readonly subscriberId: string
  readonly subscriptionId: string
}

export interface FitbitNotification {
  readonly collectionType: string
  readonly date: string
  readonly ownerId: string
  readonly ownerType: "user"
  readonly subscriptionId: string
}

export interface SubscriberVerification {
  /** Status answered to the right code: a correct subscriber says 204. */
  readonly correctCodeStatus: number
  /** Status answered to a wrong code: a correct subscriber says 404. */
  readonly wrongCodeStatus: number
  readonly verified: boolean
}

export interface FitbitControl extends SimulatorControl {
  /** POSTs the notifications as one JSON array, signed with the client's secret. */
  readonly sendNotification: (
    url: string,
    notifications: ReadonlyArray<FitbitNotification>,
    options?: { readonly clientId?: string | undefined }
  ) => Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient>
  /**
   * Notifies `url` of new data for the owner on `date`, one entry per matching subscription of
   * the client (a subscription to all collections matches every collection). `undefined` when
   * the owner has no matching subscription.
   */
  readonly notifySubscribers: (
    url: string,
    event: {
      readonly ownerId: string
      readonly collectionType: string
      readonly date: string
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** Fitbit's two verification GETs (`?verify=`): the right code, then a wrong one. */
  readonly verifySubscriber: (
    url: string,
    verificationCode: string
  ) => Effect.Effect<SubscriberVerification, HttpClientError, HttpClient.HttpClient>
  readonly subscriptions: (clientId?: string) => ReadonlyArray<FitbitSubscription>
  /** `X-Fitbit-Signature` of a body for the client (default: the first one). */
  readonly signature: (body: string, clientId?: string) => string
}

export type FitbitSimulator = Simulator<FitbitControl>

/** Base64 HMAC-SHA1 of the raw body keyed by `clientSecret + "&"`. */
export const fitbitSignature = (body: string, clientSecret: string): string =>
  crypto.createHmac("sha1", `${clientSecret}&`).update(body).digest("base64")

interface StoredSubscription extends FitbitSubscription {
  readonly clientId: string
  /** Absent for all collections. */
  readonly collection: string | null
}

interface FitbitState extends OAuth2State {
  subscriptions: Array<StoredSubscription>
}

const fitbitError = (status: number, errorType: string, message: string, headers?: Record<string, string>) =>
  json({ errors: [{ errorType, message }], success: false }, status, headers)

const rateHeaders = (remaining: number, resetSeconds: number): Record<string, string> => ({
  "fitbit-rate-limit-limit": String(RATE_LIMIT),
  "fitbit-rate-limit-remaining": String(remaining),
  "fitbit-rate-limit-reset": String(resetSeconds)
})

const tooMany = (retryAfterSeconds: number) =>
  json(
    { errors: [{ errorType: "system", fieldName: "n/a", message: "Too Many Requests" }], success: false },
    429,
    { "retry-after": String(retryAfterSeconds), ...rateHeaders(0, retryAfterSeconds) }
  )

const style: ProviderStyle = {
  error: (status, code, message) =>
    status === 500
      ? json({ errors: [{ errorType: "system", fieldName: "n/a", message }], success: false }, 500)
      : fitbitError(status, code, message),
  expiredToken: (req) =>
    fitbitError(401, "expired_token", `Access token expired: ${parseBearer(req.headers["authorization"]) ?? ""}`),
  rateLimited: tooMany
}

const collectionScopes: Record<string, ReadonlyArray<string>> = {
  activities: ["activity"],
  body: ["weight"],
  foods: ["nutrition"],
  sleep: ["sleep"],
  userRevokedAccess: []
}
const allCollectionScopes = ["activity", "nutrition", "profile", "settings", "sleep", "weight"]

// ---- synthetic data ----

const locales = ["en_US", "en_US", "en_GB", "de_DE", "fr_FR", "ja_JP"] as const

const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("fitbit", userId)
  const r = new Rng("fitbit-traits", seed, userId)
  const age = r.int(22, 65)
  return {
    ...base,
    locale: r.pick(locales),
    age,
    maxHeartRate: 220 - age,
    stepBase: r.int(5000, 11_000),
    strideMeters: r.float(0.68, 0.82, 3),
    bmr: r.int(1400, 2000),
    restingBase: r.int(52, 74),
    heightCm: r.float(155, 195, 1),
    weightKg: r.float(55, 100, 1),
    gender: r.pick(["MALE", "FEMALE"] as const)
  }
}

type Units = "en_US" | "METRIC"

/** Fitbit chooses units by `Accept-Language`: exactly `en_US` is imperial, anything else metric here. */
const unitsOf = (req: SimRequestShape): Units =>
  (req.headers["accept-language"] ?? "").trim().toLowerCase() === "en_us" ? "en_US" : "METRIC"

const KM_PER_MILE = 1.609344
const M_PER_FOOT = 0.3048

/** The summary of a local day, `progress` (0..1) of the way through it. */
export const fitbitDailySummary = (seed: string, userId: string, date: string, progress: number, units: Units) => {
  const t = traitsOf(seed, userId)
  const r = new Rng("fitbit-day", seed, userId, date)
  const steps = clamp(Math.round(t.stepBase * (0.6 + 0.8 * r.next())), 2000, 15_000)
  const intensity = steps / 15_000
  const veryActive = clamp(Math.round(intensity * 40 + r.int(0, 20)), 0, 60)
  const fairlyActive = r.int(0, 40)
  const lightlyActive = r.int(120, 320)
  const sleep = r.int(360, 510)
  const sedentary = 1440 - sleep - veryActive - fairlyActive - lightlyActive
  const totalKm = (steps * t.strideMeters) / 1000
  const weights = { very: veryActive * 2, moderate: fairlyActive * 1.5, light: lightlyActive * 0.5 }
  const weightSum = weights.very + weights.moderate + weights.light
  const floors = r.int(0, 25)
  const activityCalories = Math.round(steps * 0.045 + veryActive * 9 + fairlyActive * 6 + lightlyActive * 2.5)
  const restingHeartRate = t.restingBase + r.int(-3, 3)
  const p = clamp(progress, 0, 1)
  const scale = (n: number) => Math.round(n * p)
  const dist = (km: number) => round(units === "en_US" ? (km * p) / KM_PER_MILE : km * p, 2)
  const caloriesBMR = scale(t.bmr)
  const activity = scale(activityCalories)
  const caloriesOut = caloriesBMR + Math.round(activity * 0.5)
  const zoneBounds = [
    30,
    Math.round(t.maxHeartRate * 0.5),
    Math.round(t.maxHeartRate * 0.7),
    Math.round(t.maxHeartRate * 0.85),
    220
  ]
  const peak = scale(Math.round(veryActive * 0.3))
  const cardio = scale(Math.round(veryActive * 0.7 + fairlyActive * 0.3))
  const fatBurn = scale(Math.round(fairlyActive * 0.7 + lightlyActive * 0.6))
  const outOfRange = scale(1440) - peak - cardio - fatBurn
  const zoneMinutes = [outOfRange, fatBurn, cardio, peak]
  const zoneRates = [1.0, 4.0, 8.0, 11.0]
  const zoneEnergy = zoneMinutes.map((m, i) => m * zoneRates[i]!)
  const energySum = zoneEnergy.reduce((a, b) => a + b, 0)
  const zoneNames = ["Out of Range", "Fat Burn", "Cardio", "Peak"]
  const hasData = p > 0
  const veryKm = weightSum === 0 ? 0 : (totalKm * weights.very) / weightSum
  const moderateKm = weightSum === 0 ? 0 : (totalKm * weights.moderate) / weightSum
  const lightKm = totalKm - veryKm - moderateKm
  return {
    activities: [],
    goals: {
      activeMinutes: 30,
      caloriesOut: t.bmr + 800,
      distance: units === "en_US" ? 5 : 8.05,
      floors: 10,
      steps: 10_000
    },
    summary: {
      activeScore: -1,
      activityCalories: activity,
      caloriesBMR,
      caloriesOut,
      distances: [
        { activity: "total", distance: dist(totalKm) },
        { activity: "tracker", distance: dist(totalKm) },
        { activity: "loggedActivities", distance: 0 },
        { activity: "veryActive", distance: dist(veryKm) },
        { activity: "moderatelyActive", distance: dist(moderateKm) },
        { activity: "lightlyActive", distance: dist(lightKm) },
        { activity: "sedentaryActive", distance: 0 }
      ],
      elevation: round(units === "en_US" ? (scale(floors) * 3.048) / M_PER_FOOT : scale(floors) * 3.048, 2),
      fairlyActiveMinutes: scale(fairlyActive),
      floors: scale(floors),
      heartRateZones: zoneNames.map((name, i) => ({
        caloriesOut: energySum === 0 ? 0 : round((caloriesOut * zoneEnergy[i]!) / energySum, 2),
        max: zoneBounds[i + 1]!,
        min: zoneBounds[i]!,
        minutes: hasData ? zoneMinutes[i]! : 0,
        name
      })),
      lightlyActiveMinutes: scale(lightlyActive),
      marginalCalories: Math.round(activity * 0.25),
      ...(hasData ? { restingHeartRate } : {}),
      sedentaryMinutes: scale(sedentary),
      steps: scale(steps),
      veryActiveMinutes: scale(veryActive)
    }
  }
}

// ---- the simulator ----

export const makeFitbitSimulator = (options: SimulatorOptions): FitbitSimulator => {
  const core = new SimulatorCore<FitbitState>("Fitbit", "fitbit", options, () => ({
    ...freshOAuth2State(),
    subscriptions: []
  }))
  const replays = new Map<string, { until: number; accessKey: string; refreshKey: string; body: unknown }>()

  const tokenResponse = (
    userId: string,
    issued: { accessToken: string; refreshToken: string | null; scope: string }
  ) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    refresh_token: issued.refreshToken,
    scope: issued.scope,
    token_type: "Bearer",
    user_id: userId
  })

  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (clientId === null || clientId === "") {
      return errorPage("Fitbit", "invalid_request - Missing parameters: client_id")
    }
    if (!core.isClient(clientId)) return errorPage("Fitbit", "unauthorized_client - Invalid client_id")
    const responseType = q.get("response_type")
    if (responseType === null) return errorPage("Fitbit", "invalid_request - Missing response_type parameter value")
    if (responseType !== "code") {
      return errorPage("Fitbit", "unsupported_response_type - Invalid response_type parameter value")
    }
    const redirectUri = q.get("redirect_uri")
    if (redirectUri === null || redirectUri === "") {
      return errorPage("Fitbit", "invalid_request - Missing redirect_uri parameter value")
    }
    if (!isAbsoluteUrl(redirectUri)) {
      return errorPage("Fitbit", "invalid_request - Invalid redirect_uri parameter value")
    }
    const scopeParam = q.get("scope")
    if (scopeParam === null || scopeParam.trim() === "") {
      return errorPage("Fitbit", "invalid_request - Missing parameters: scope")
    }
    const scopes = [...new Set(scopeParam.split(/[\s+]+/).filter((s) => s !== ""))]
    const unknown = scopes.filter((s) => !FITBIT_SCOPES.includes(s))
    if (unknown.length > 0) return errorPage("Fitbit", `invalid_scope - Invalid scope: ${unknown.join(" ")}`)
    const challenge = q.get("code_challenge")
    if (challenge !== null) {
      if (challenge.length < 43 || challenge.length > 128) {
        return errorPage("Fitbit", "invalid_request - The code_challenge parameter length must be between 43 and 128")
      }
      if (!challengePattern.test(challenge)) {
        return errorPage("Fitbit", "invalid_request - The code_challenge parameter is invalid")
      }
      if (q.get("code_challenge_method") !== "S256") {
        return errorPage("Fitbit", "invalid_request - Unsupported code_challenge_method")
      }
    }
    const state = q.get("state")
    if (req.method === "GET") {
      return consentPage({
        providerName: "Fitbit",
        clientId,
        action: selfUrl(core, req),
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) return errorPage("Fitbit", "invalid_request - decision must be approve or deny")
    if (consent.decision === "deny" || consent.granted.length === 0) {
      return redirectWith(redirectUri, {
        error: "access_denied",
        error_description: "The user denied the request",
        state
      })
    }
    const userId = providerUserIds.fitbit(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope: consent.granted.join(" "),
      challenge,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const clientAuth = (req: SimRequestShape) => {
    const basic = parseBasic(req.headers["authorization"])
    if (basic === undefined) {
      return fitbitError(401, "invalid_client", "Invalid authorization header format. Use Basic client credentials.")
    }
    if (core.clientSecret(basic.id) !== basic.secret) {
      return fitbitError(401, "invalid_client", `Invalid authorization header. Client id invalid: ${basic.id}`)
    }
    req.identify({ clientId: basic.id })
    return basic.id
  }

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const clientId = clientAuth(req)
    if (typeof clientId !== "string") return clientId
    const form = req.form
    const s = core.state
    const now = core.nowMs()
    const grantType = form.get("grant_type")
    if (grantType === "authorization_code") {
      const code = form.get("code")
      if (code === null || code === "") return fitbitError(400, "invalid_request", "Missing parameters: code")
      const record = redeemCode(s, code, now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return fitbitError(400, "invalid_grant", `Authorization code invalid: ${code}`)
      }
      if (record.redirectUri !== null && form.get("redirect_uri") !== record.redirectUri) {
        return fitbitError(400, "invalid_grant", "Invalid redirect_uri parameter value")
      }
      if (record.challenge !== null && !pkceMatches(record.challenge, form.get("code_verifier"))) {
        return fitbitError(400, "invalid_grant", "Code verifier is invalid")
      }
      // a user holds one active refresh token per app
      for (const [key, r] of Object.entries(s.refresh)) {
        if (r.clientId === clientId && r.userId === record.userId) delete s.refresh[key]
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
      return json(tokenResponse(record.userId, issued))
    }
    if (grantType === "refresh_token") {
      const refreshToken = form.get("refresh_token")
      if (refreshToken === null || refreshToken === "") {
        return fitbitError(400, "invalid_request", "Missing parameters: refresh_token")
      }
      const key = tokenKey(refreshToken)
      const record = s.refresh[key]
      if (record === undefined || record.clientId !== clientId) {
        return fitbitError(400, "invalid_grant", `Refresh token invalid: ${refreshToken}`)
      }
      req.identify({ userId: record.userId })
      if (record.usedAt !== null) {
        const replay = replays.get(key)
        const fresh = replay !== undefined && now < replay.until &&
          s.access[replay.accessKey]?.usedAt === null && s.refresh[replay.refreshKey]?.usedAt === null
        if (fresh) return json(replay.body)
        return fitbitError(400, "invalid_grant", `Refresh token invalid: ${refreshToken}`)
      }
      record.usedAt = now
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      const body = tokenResponse(record.userId, issued)
      replays.set(key, {
        until: now + REFRESH_REPLAY_MS,
        accessKey: tokenKey(issued.accessToken),
        refreshKey: tokenKey(issued.refreshToken!),
        body
      })
      prune(s, now)
      core.commit()
      return json(body)
    }
    if (grantType === null) return fitbitError(400, "invalid_request", "Missing parameters: grant_type")
    return fitbitError(400, "unsupported_grant_type", `Unsupported grant_type: ${grantType}`)
  }

  const revokeUserFor = (s: FitbitState, match: (r: { clientId: string; userId: string }) => boolean) => {
    revokeWhere(s, match)
    s.subscriptions = s.subscriptions.filter((sub) => !match({ clientId: sub.clientId, userId: sub.ownerId }))
  }

  const revoke = (req: SimRequestShape) => {
    const clientId = clientAuth(req)
    if (typeof clientId !== "string") return clientId
    const value = req.form.get("token")
    if (value === null || value === "") return fitbitError(400, "invalid_request", "Missing parameters: token")
    const s = core.state
    const key = tokenKey(value)
    const owner = s.access[key] ?? s.refresh[key]
    if (owner !== undefined && owner.clientId === clientId) {
      req.identify({ userId: owner.userId })
      revokeUserFor(s, (r) => r.clientId === clientId && r.userId === owner.userId)
      core.commit()
    }
    // RFC 7009: an unknown token is not an error
    return json({})
  }

  /** Bearer auth, scopes, the `-`-or-own-id path user, and the hourly per-user rate limit. */
  const api = (
    req: SimRequestShape,
    pathUser: string | undefined,
    scopes: ReadonlyArray<string>,
    f: (record: AccessRecord) => HttpServerResponse.HttpServerResponse
  ): HttpServerResponse.HttpServerResponse => {
    const bearer = parseBearer(req.headers["authorization"])
    const s = core.state
    const now = core.nowMs()
    const auth = authenticate(s, bearer, now)
    switch (auth._tag) {
      case "Missing":
        return fitbitError(401, "invalid_token", "Authorization header required (Bearer access token)")
      case "Invalid":
        return fitbitError(401, "invalid_token", `Access token invalid: ${bearer}`)
      case "Expired":
        return fitbitError(401, "expired_token", `Access token expired: ${bearer}`)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    if (record.usedAt === null) {
      record.usedAt = now
      core.commit()
    }
    const hit = core.rates.hit(`${record.clientId}:${record.userId}`, HOUR_MS, RATE_LIMIT, now)
    if (hit.limited) return tooMany(hit.resetSeconds)
    const headers = rateHeaders(hit.remaining, hit.resetSeconds)
    const granted = record.scope.split(" ")
    const missing = scopes.filter((sc) => !granted.includes(sc))
    if (pathUser !== "-" && pathUser !== record.userId) {
      return fitbitError(
        403,
        "insufficient_permissions",
        "Access to another user's resources is not permitted",
        headers
      )
    }
    if (missing.length > 0) {
      return fitbitError(
        403,
        "insufficient_scope",
        `This application does not have permission to access ${missing.join(" ")} data.`,
        headers
      )
    }
    return Response.setHeaders(f(record), headers)
  }

  const localToday = (userId: string) => {
    const { zone } = userTraits("fitbit", userId)
    return localDayOf(core.nowMs(), zone.offsetMinutes)
  }

  const profile = (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) =>
    api(req, params["userId"], ["profile"], (record) => {
      const t = traitsOf(core.seed, record.userId)
      const name = core.state.users[record.userId]?.name ?? record.userId
      const imperial = unitsOf(req) === "en_US"
      const preferred = t.locale === "en_US" ? "en_US" : "METRIC"
      return json({
        user: {
          age: t.age,
          averageDailySteps: t.stepBase,
          displayName: name,
          distanceUnit: preferred,
          encodedId: record.userId,
          fullName: name,
          gender: t.gender,
          glucoseUnit: preferred,
          height: imperial ? round(t.heightCm / 2.54, 1) : t.heightCm,
          heightUnit: preferred,
          locale: t.locale,
          memberSince: formatDay(t.memberSinceDay),
          offsetFromUTCMillis: t.zone.offsetMinutes * 60_000,
          startDayOfWeek: "SUNDAY",
          strideLengthWalking: imperial ? round((t.strideMeters * 100) / 2.54, 1) : round(t.strideMeters * 100, 1),
          timezone: t.zone.name,
          waterUnit: preferred,
          weight: imperial ? round(t.weightKg * 2.20462, 1) : t.weightKg,
          weightUnit: t.locale === "en_US" ? "en_US" : t.locale === "en_GB" ? "en_GB" : "METRIC"
        }
      })
    })

  const daily = (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) => {
    const m = /^(\d{4}-\d{2}-\d{2}|today)\.json$/.exec(params["file"] ?? "")
    return api(req, params["userId"], ["activity"], (record) => {
      if (m === null) return fitbitError(400, "validation", "Invalid date: expected yyyy-MM-dd.json")
      const today = localToday(record.userId)
      const day = m[1] === "today" ? today : parseDay(m[1]!)
      if (day === undefined) return fitbitError(400, "validation", `Invalid date: ${m[1]}`)
      const { zone, memberSinceDay } = userTraits("fitbit", record.userId)
      const progress = day < memberSinceDay || day > today
        ? 0
        : day < today
        ? 1
        : (core.nowMs() - localMidnight(day, zone.offsetMinutes)) / DAY_MS
      return json(fitbitDailySummary(core.seed, record.userId, formatDay(day), progress, unitsOf(req)))
    })
  }

  const subscriptionBody = (sub: StoredSubscription): FitbitSubscription => ({
    collectionType: sub.collectionType,
    ownerId: sub.ownerId,
    ownerType: "user",
    subscriberId: sub.subscriberId,
    subscriptionId: sub.subscriptionId
  })

  const subscription = (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) => {
    const collection = params["collection"] ?? null
    if (collection !== null && !FITBIT_COLLECTIONS.includes(collection)) {
      return fitbitError(404, "not_found", `Unknown collection: ${collection}`)
    }
    const scopes = collection === null ? allCollectionScopes : collectionScopes[collection]!
    return api(req, params["userId"], scopes, (record) => {
      const m = /^(.+)\.json$/.exec(params["file"] ?? "")
      if (m === null) return fitbitError(400, "validation", "Subscription id must end in .json")
      const subscriptionId = m[1]!
      if (subscriptionId.length > 50) {
        return fitbitError(400, "validation", "Subscription id must be at most 50 characters")
      }
      const s = core.state
      const mine = (sub: StoredSubscription) =>
        sub.clientId === record.clientId && sub.ownerId === record.userId && sub.collection === collection
      const existing = s.subscriptions.find(mine)
      if (req.method === "DELETE") {
        if (existing === undefined || existing.subscriptionId !== subscriptionId) {
          return fitbitError(404, "not_found", `Subscription not found: ${subscriptionId}`)
        }
        s.subscriptions = s.subscriptions.filter((sub) => sub !== existing)
        core.commit()
        return Response.empty({ status: 204 })
      }
      if (existing !== undefined) {
        return existing.subscriptionId === subscriptionId
          ? json(subscriptionBody(existing), 200)
          : fitbitError(409, "conflict", `Subscription ${existing.subscriptionId} already exists for this collection`)
      }
      const created: StoredSubscription = {
        clientId: record.clientId,
        collection,
        collectionType: collection ?? "user",
        ownerId: record.userId,
        ownerType: "user",
        subscriberId: req.headers["x-fitbit-subscriber-id"] ?? "1",
        subscriptionId
      }
      s.subscriptions.push(created)
      core.commit()
      return json(subscriptionBody(created), 201)
    })
  }

  const listSubscriptions = (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) => {
    const collection = params["collection"] ?? null
    if (collection !== null && !FITBIT_COLLECTIONS.includes(collection)) {
      return fitbitError(404, "not_found", `Unknown collection: ${collection}`)
    }
    return api(req, params["userId"], [], (record) =>
      json({
        apiSubscriptions: core.state.subscriptions
          .filter((sub) =>
            sub.clientId === record.clientId && sub.ownerId === record.userId &&
            (collection === null || sub.collection === collection)
          )
          .map(subscriptionBody)
      }))
  }

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth2/authorize", handle(authorizePage)),
    HttpRouter.post("/oauth2/authorize", handle(authorizePage)),
    HttpRouter.post("/oauth2/token", handle(token)),
    HttpRouter.post("/oauth2/revoke", handle(revoke)),
    HttpRouter.get("/1/user/:userId/profile.json", handle(profile)),
    HttpRouter.get("/1/user/:userId/activities/date/:file", handle(daily)),
    HttpRouter.get("/1/user/:userId/apiSubscriptions.json", handle(listSubscriptions)),
    HttpRouter.get("/1/user/:userId/:collection/apiSubscriptions.json", handle(listSubscriptions)),
    HttpRouter.post("/1/user/:userId/apiSubscriptions/:file", handle(subscription)),
    HttpRouter.del("/1/user/:userId/apiSubscriptions/:file", handle(subscription)),
    HttpRouter.post("/1/user/:userId/:collection/apiSubscriptions/:file", handle(subscription)),
    HttpRouter.del("/1/user/:userId/:collection/apiSubscriptions/:file", handle(subscription))
  )

  const signature = (body: string, clientId?: string) => fitbitSignature(body, core.client(clientId).clientSecret)

  const sendNotification: FitbitControl["sendNotification"] = (url, notifications, opts) => {
    const body = JSON.stringify(notifications)
    return deliver(url, body, { "x-fitbit-signature": signature(body, opts?.clientId) })
  }

  const control: FitbitControl = {
    ...baseControl(core, {
      resetGrants: () => {
        replays.clear()
        core.cell.reset()
      },
      expireAccessTokens: () => {
        expireAll(core.state, core.nowMs())
        core.commit()
      },
      revokeUser: (userId) => {
        revokeUserFor(core.state, (r) => r.userId === userId)
        core.commit()
      },
      users: () => listUsers(core.state)
    }),
    sendNotification,
    notifySubscribers: (url, event) => {
      const clientId = core.client(event.clientId).clientId
      const matching = core.state.subscriptions.filter((sub) =>
        sub.clientId === clientId && sub.ownerId === event.ownerId &&
        (sub.collection === null || sub.collection === event.collectionType)
      )
      if (matching.length === 0) return Effect.succeed(undefined)
      return sendNotification(
        url,
        matching.map((sub) => ({
          collectionType: event.collectionType,
          date: event.date,
          ownerId: event.ownerId,
          ownerType: "user" as const,
          subscriptionId: sub.subscriptionId
        })),
        { clientId }
      )
    },
    verifySubscriber: (url, verificationCode) =>
      Effect.gen(function*() {
        const withCode = (code: string) => {
          const target = new URL(url)
          target.searchParams.set("verify", code)
          return target.toString()
        }
        const wrong = `${verificationCode}-wrong-${crypto.randomBytes(4).toString("hex")}`
        const correct = yield* deliver(withCode(verificationCode), "", {}, "GET")
        const incorrect = yield* deliver(withCode(wrong), "", {}, "GET")
        return {
          correctCodeStatus: correct.status,
          wrongCodeStatus: incorrect.status,
          verified: correct.status === 204 && incorrect.status === 404
        }
      }),
    subscriptions: (clientId) =>
      core.state.subscriptions.filter((sub) => clientId === undefined || sub.clientId === clientId).map(
        subscriptionBody
      ),
    signature
  }

  return assemble(core, style, routes, control)
}
