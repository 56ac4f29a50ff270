/**
 * The Garmin Health API simulator with OAuth 1.0a (provider reference §3): request token,
 * consent page (`oauthConfirm`), access token with verifier, every signed request's HMAC-SHA1
 * signature and nonce checked; user id, permissions, deregistration, dailies pull by upload
 * window, backfill; and helpers delivering push, ping, backfill and deregistration
 * notifications (header `garmin-client-id`, no signature, as Garmin does).
 *
 * Paths under B: `POST /oauth-service/oauth/request_token`, `GET|POST /oauthConfirm`,
 * `POST /oauth-service/oauth/access_token`, `GET /wellness-api/rest/user/id`,
 * `GET /wellness-api/rest/user/permissions`, `DELETE /wellness-api/rest/user/registration`,
 * `GET /wellness-api/rest/dailies`, `GET /wellness-api/rest/backfill/{type}`.
 *
 * Choices where Garmin is undocumented: denial redirects to the callback with `oauth_token`
 * and `oauth_problem=user_refused`; without any callback (`oob`) the page shows the verifier;
 * request tokens live 10 minutes; a wrong verifier leaves the request token usable; there is no
 * clock-skew check on `oauth_timestamp` (the simulator clock may be virtual) but a reused
 * (consumer key, timestamp, nonce) is refused; backfill needs `HISTORICAL_DATA_EXPORT`
 * (403 otherwise), which the consent form leaves unticked, as Garmin's does.
 */
import { HttpRouter } from "@effect/platform"
import { HttpServerResponse as Response } from "@effect/platform"
import type { HttpServerResponse } from "@effect/platform"
import type { HttpClient } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { assemble } from "../core/App.js"
import { parseOAuthHeader } from "../core/Credentials.js"
import type { Delivery } from "../core/Deliver.js"
import { deliver } from "../core/Deliver.js"
import { normalizeBaseUri, readOAuth1, signatureMatches } from "../core/OAuth1.js"
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
  sha256Hex,
  userTraits
} from "../core/Random.js"
import type { ProviderStyle, SimRequestShape } from "../core/Request.js"
import { handle } from "../core/Request.js"
import {
  consentPage,
  errorPage,
  escapeHtml,
  isAbsoluteUrl,
  json,
  readConsent,
  redirectWith,
  selfUrl
} from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"

export const GARMIN_PERMISSIONS: ReadonlyArray<string> = [
  "ACTIVITY_EXPORT",
  "WORKOUT_IMPORT",
  "HEALTH_EXPORT",
  "COURSE_IMPORT",
  "MCT_EXPORT",
  "HISTORICAL_DATA_EXPORT"
]

const REQUEST_TOKEN_TTL_MS = 10 * 60_000
const MAX_PULL_SECONDS = 86_400
const MAX_BACKFILL_SECONDS = 30 * 86_400
const NONCE_MEMORY = 10_000

interface RequestTokenRecord {
  readonly consumerKey: string
  readonly secret: string
  readonly callback: string | null
  readonly expiresAt: number
  verifier: string | null
  userId: string | null
  permissions: Array<string> | null
}

interface UatRecord {
  readonly consumerKey: string
  readonly userId: string
  readonly secret: string
}

interface Registration {
  readonly consumerKey: string
  readonly userId: string
  permissions: Array<string>
  active: boolean
  lastUat: string
}

interface Backfill {
  readonly consumerKey: string
  readonly userId: string
  readonly start: number
  readonly end: number
}

interface GarminState {
  users: Record<string, { readonly name: string }>
  /** OAuth 1.0a needs the raw secrets to check signatures, so this state holds real (sandbox) tokens. */
  requestTokens: Record<string, RequestTokenRecord>
  uats: Record<string, UatRecord>
  registrations: Record<string, Registration>
  pendingBackfills: Array<Backfill>
  backfillKeys: Array<string>
}

export interface GarminControl extends SimulatorControl {
  /**
   * Pushes the user's dailies for `dates` (default: the user's local today) as they stand now.
   * `undefined` when the user is not registered with the client (nothing is sent).
   */
  readonly pushDailies: (
    url: string,
    input: {
      readonly userId: string
      readonly dates?: ReadonlyArray<string> | undefined
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** A ping: the upload window and a `callbackURL` under B to pull it from. */
  readonly pingDailies: (
    url: string,
    input: {
      readonly userId: string
      readonly uploadStartTimeInSeconds: number
      readonly uploadEndTimeInSeconds: number
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** Pushes the dailies of every pending backfill of the client, one request each; delivered ones are done. */
  readonly deliverBackfills: (
    url: string,
    options?: { readonly clientId?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<Delivery>, HttpClientError, HttpClient.HttpClient>
  readonly sendDeregistration: (
    url: string,
    input: { readonly userId: string; readonly clientId?: string | undefined }
  ) => Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient>
  readonly pendingBackfills: () => ReadonlyArray<
    { readonly clientId: string; readonly userId: string; readonly start: number; readonly end: number }
  >
  /** The dailies a push would carry (for assertions without a receiver). */
  readonly dailies: (userId: string, dates: ReadonlyArray<string>) => ReadonlyArray<Record<string, unknown>>
}

export type GarminSimulator = Simulator<GarminControl>

const garminError = (status: number, message: string, headers?: Record<string, string>) =>
  json({ errorMessage: message }, status, headers)

const style: ProviderStyle = {
  error: (status, _code, message) => garminError(status, message),
  expiredToken: () => garminError(401, "Invalid or expired user access token"),
  rateLimited: (seconds) => garminError(429, "Rate limit exceeded", { "retry-after": String(seconds) })
}

const formEncoded = (values: Record<string, string>) =>
  Response.text(new URLSearchParams(values).toString(), { contentType: "application/x-www-form-urlencoded" })

const registrationKey = (consumerKey: string, userId: string) => `${consumerKey} ${userId}`

// ---- synthetic data ----

const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("garmin", userId)
  const r = new Rng("garmin-traits", seed, userId)
  return {
    ...base,
    stepBase: r.int(5000, 11_000),
    strideMeters: r.float(0.68, 0.82, 3),
    bmr: r.int(1400, 2000),
    restingBase: r.int(50, 72),
    maxHeartRate: r.int(165, 195),
    stressBase: r.int(20, 50),
    summaryPrefix: `x${sha256Hex("garmin-summary", userId).slice(0, 7)}`
  }
}

/** Local times (fraction of the day) of the day's uploads; the last one completes the day after midnight. */
const UPLOAD_POINTS = [0.25, 0.5, 0.75, 1]

/** The daily summary of a local day, `progress` (0..1) of the way through it. */
export const garminDaily = (seed: string, userId: string, date: string, progress: number) => {
  const t = traitsOf(seed, userId)
  const day = parseDay(date)!
  const r = new Rng("garmin-day", seed, userId, date)
  const p = clamp(progress, 0, 1)
  const scale = (n: number) => Math.round(n * p)
  const steps = clamp(Math.round(t.stepBase * (0.6 + 0.8 * r.next())), 2000, 15_000)
  const vigorous = r.int(0, 45) * 60
  const moderate = r.int(5, 60) * 60
  const active = vigorous + moderate + r.int(90, 240) * 60
  const activeKilocalories = Math.round(steps * 0.04 + vigorous / 60 * 9 + moderate / 60 * 5)
  const floors = r.int(0, 25)
  const resting = t.restingBase + r.int(-3, 3)
  const maxHr = clamp(t.maxHeartRate - r.int(0, 40), resting + 40, t.maxHeartRate)
  const avgHr = resting + r.int(10, 25)
  const elapsed = Math.round(86_400 * p)
  const samples: Record<string, number> = {}
  for (let s = 0; s < elapsed; s += 3600) samples[String(s)] = clamp(avgHr + r.int(-12, 25), resting - 2, maxHr)
  const stressTotal = scale(r.int(8, 14) * 3600)
  const high = Math.round(stressTotal * r.float(0.05, 0.2, 3))
  const medium = Math.round(stressTotal * r.float(0.2, 0.35, 3))
  const low = stressTotal - high - medium
  const restStress = scale(r.int(6, 9) * 3600)
  const activityStress = scale(Math.round(active * 0.6))
  const averageStress = clamp(t.stressBase + r.int(-10, 15), 1, 100)
  const start = localMidnight(day, t.zone.offsetMinutes) / 1000
  const bodyBatteryHigh = r.int(60, 100)
  const bodyBatteryLow = r.int(5, 40)
  return {
    summaryId: `${t.summaryPrefix}-${start.toString(16)}`,
    calendarDate: date,
    activityType: "WALKING",
    activeKilocalories: scale(activeKilocalories),
    bmrKilocalories: scale(t.bmr),
    steps: scale(steps),
    distanceInMeters: round(scale(steps) * t.strideMeters, 1),
    durationInSeconds: elapsed,
    activeTimeInSeconds: scale(active),
    startTimeInSeconds: start,
    startTimeOffsetInSeconds: t.zone.offsetMinutes * 60,
    moderateIntensityDurationInSeconds: scale(moderate),
    vigorousIntensityDurationInSeconds: scale(vigorous),
    floorsClimbed: scale(floors),
    minHeartRateInBeatsPerMinute: resting - r.int(0, 4),
    averageHeartRateInBeatsPerMinute: avgHr,
    maxHeartRateInBeatsPerMinute: maxHr,
    restingHeartRateInBeatsPerMinute: resting,
    timeOffsetHeartRateSamples: samples,
    averageStressLevel: averageStress,
    maxStressLevel: clamp(averageStress + r.int(20, 50), averageStress, 100),
    stressDurationInSeconds: stressTotal,
    restStressDurationInSeconds: restStress,
    activityStressDurationInSeconds: activityStress,
    lowStressDurationInSeconds: low,
    mediumStressDurationInSeconds: medium,
    highStressDurationInSeconds: high,
    stressQualifier: averageStress < 26 ? "calm_awake" : averageStress < 51 ? "balanced" : "stressful_awake",
    stepsGoal: 7500,
    netKilocaloriesGoal: 2000,
    intensityDurationGoalInSeconds: 9000,
    floorsClimbedGoal: 10,
    bodyBatteryChargedValue: r.int(30, 80),
    bodyBatteryDrainedValue: scale(r.int(30, 80)),
    bodyBatteryHighestValue: bodyBatteryHigh,
    bodyBatteryLowestValue: bodyBatteryLow,
    bodyBatteryMostRecentValue: clamp(Math.round(bodyBatteryHigh - (bodyBatteryHigh - bodyBatteryLow) * p), 0, 100)
  }
}

// ---- the simulator ----

export const makeGarminSimulator = (options: SimulatorOptions): GarminSimulator => {
  const core = new SimulatorCore<GarminState>("Garmin", "garmin", options, () => ({
    users: {},
    requestTokens: {},
    uats: {},
    registrations: {},
    pendingBackfills: [],
    backfillKeys: []
  }))
  const nonces = new Set<string>()

  const randomHex = (bytes: number) => crypto.randomBytes(bytes).toString("hex")

  /** The upload instants (Unix seconds) of a local day's versions; deterministic per user and day. */
  const uploadTimes = (userId: string, day: number): ReadonlyArray<number> => {
    const { zone } = userTraits("garmin", userId)
    const r = new Rng("garmin-upload", core.seed, userId, String(day))
    const midnight = localMidnight(day, zone.offsetMinutes) / 1000
    return UPLOAD_POINTS.map((point) => Math.floor(midnight + point * 86_400 + r.int(60, 1200)))
  }

  const progressNow = (userId: string, day: number): number => {
    const { zone, memberSinceDay } = userTraits("garmin", userId)
    if (day < memberSinceDay) return 0
    return clamp((core.nowMs() - localMidnight(day, zone.offsetMinutes)) / DAY_MS, 0, 1)
  }

  const withUser = (daily: Record<string, unknown>, userId: string, uat: string | undefined) => ({
    userId,
    ...(uat === undefined ? {} : { userAccessToken: uat }),
    ...daily
  })

  type Verified = {
    readonly consumerKey: string
    readonly token: string | undefined
    readonly verifier: string | undefined
  }

  /** Checks an OAuth 1.0a signed request; `tokenSecret` finds the token's secret or says why not. */
  const verifySigned = (
    req: SimRequestShape,
    tokenSecret: (consumerKey: string, token: string | undefined) => string | { readonly error: string }
  ): Verified | HttpServerResponse.HttpServerResponse => {
    const header = parseOAuthHeader(req.headers["authorization"])
    const params = readOAuth1(header, req.query, req.form)
    if (typeof params === "string") return garminError(401, params)
    const consumerSecret = core.clientSecret(params.consumerKey)
    if (consumerSecret === undefined) return garminError(401, "Invalid consumer key")
    req.identify({ clientId: params.consumerKey })
    const secret = tokenSecret(params.consumerKey, params.token)
    if (typeof secret !== "string") return garminError(401, secret.error)
    const urls = core.baseCandidates(req.headers).map((base) => `${base}${req.path}`)
    const ok = signatureMatches({
      method: req.method,
      baseUris: [...urls, ...urls.map(normalizeBaseUri)],
      header,
      query: req.query,
      form: req.form,
      params,
      consumerSecret,
      tokenSecret: secret
    })
    if (!ok) return garminError(401, "Invalid signature")
    const nonceKey = `${params.consumerKey}:${params.timestamp}:${params.nonce}`
    if (nonces.has(nonceKey)) return garminError(401, "Nonce already used")
    nonces.add(nonceKey)
    if (nonces.size > NONCE_MEMORY) nonces.delete(nonces.values().next().value!)
    return { consumerKey: params.consumerKey, token: params.token, verifier: params.verifier }
  }

  const requestToken = (req: SimRequestShape) => {
    const verified = verifySigned(req, () => "")
    if (!("consumerKey" in verified)) return verified
    const header = parseOAuthHeader(req.headers["authorization"])
    const callback = header?.get("oauth_callback") ?? req.form.get("oauth_callback") ?? req.query.get("oauth_callback")
    const token = crypto.randomUUID()
    const secret = randomHex(20)
    const s = core.state
    const now = core.nowMs()
    for (const [key, record] of Object.entries(s.requestTokens)) {
      if (record.expiresAt <= now) delete s.requestTokens[key]
    }
    s.requestTokens[token] = {
      consumerKey: verified.consumerKey,
      secret,
      callback: callback !== null && callback !== undefined && isAbsoluteUrl(callback) ? callback : null,
      expiresAt: now + REQUEST_TOKEN_TTL_MS,
      verifier: null,
      userId: null,
      permissions: null
    }
    core.commit()
    return formEncoded({ oauth_token: token, oauth_token_secret: secret, oauth_callback_confirmed: "true" })
  }

  const confirm = (req: SimRequestShape) => {
    const token = req.query.get("oauth_token")
    if (token === null || token === "") return errorPage("Garmin Connect", "Missing oauth_token")
    const s = core.state
    const record = s.requestTokens[token]
    if (record === undefined || record.expiresAt <= core.nowMs()) {
      return errorPage("Garmin Connect", "Invalid or expired oauth_token")
    }
    const given = req.query.get("oauth_callback")
    if (given !== null && given !== "oob" && !isAbsoluteUrl(given)) {
      return errorPage("Garmin Connect", "Invalid oauth_callback")
    }
    const callback = given !== null && given !== "oob" ? given : record.callback
    if (req.method === "GET") {
      return consentPage({
        providerName: "Garmin Connect",
        clientId: record.consumerKey,
        action: selfUrl(core, req),
        choicesLabel: "Permissions",
        choices: GARMIN_PERMISSIONS.map((value) => ({ value, checked: value !== "HISTORICAL_DATA_EXPORT" }))
      })
    }
    const consent = readConsent(req.form, GARMIN_PERMISSIONS)
    if (consent.decision === undefined) return errorPage("Garmin Connect", "decision must be approve or deny")
    if (consent.decision === "deny") {
      delete s.requestTokens[token]
      core.commit()
      return callback === null
        ? errorPage("Garmin Connect", "Access was denied (oauth_problem=user_refused)", 403)
        : redirectWith(callback, { oauth_token: token, oauth_problem: "user_refused" })
    }
    const userId = providerUserIds.garmin(consent.user)
    s.users[userId] = { name: consent.user }
    record.userId = userId
    record.permissions = [...consent.granted]
    record.verifier = randomHex(8)
    core.commit()
    req.identify({ clientId: record.consumerKey, userId })
    if (callback === null) {
      return Response.text(
        `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Garmin Connect sandbox</title></head>` +
          `<body><p>Verifier: <code id="oauth_verifier">${escapeHtml(record.verifier)}</code></p></body></html>\n`,
        { contentType: "text/html; charset=utf-8" }
      )
    }
    return redirectWith(callback, { oauth_token: token, oauth_verifier: record.verifier })
  }

  const accessToken = (req: SimRequestShape) => {
    const s = core.state
    const verified = verifySigned(req, (consumerKey, token) => {
      const record = token === undefined ? undefined : s.requestTokens[token]
      if (record === undefined || record.consumerKey !== consumerKey || record.expiresAt <= core.nowMs()) {
        return { error: "Invalid or expired request token" }
      }
      return record.secret
    })
    if (!("consumerKey" in verified)) return verified
    const record = s.requestTokens[verified.token!]!
    if (record.verifier === null || record.userId === null) return garminError(401, "Request token not authorized")
    if (verified.verifier === undefined) return garminError(401, "Missing oauth_verifier")
    if (verified.verifier !== record.verifier) return garminError(401, "Invalid oauth_verifier")
    delete s.requestTokens[verified.token!]
    const userId = record.userId
    const uat = crypto.randomUUID()
    const secret = randomHex(20)
    s.uats[uat] = { consumerKey: verified.consumerKey, userId, secret }
    s.registrations[registrationKey(verified.consumerKey, userId)] = {
      consumerKey: verified.consumerKey,
      userId,
      permissions: record.permissions ?? [...GARMIN_PERMISSIONS],
      active: true,
      lastUat: uat
    }
    core.commit()
    req.identify({ userId })
    return formEncoded({ oauth_token: uat, oauth_token_secret: secret })
  }

  /** A signed call with a live user access token. */
  const api = (
    req: SimRequestShape,
    f: (uat: string, record: UatRecord, registration: Registration) => HttpServerResponse.HttpServerResponse
  ) => {
    const s = core.state
    const verified = verifySigned(req, (consumerKey, token) => {
      const record = token === undefined ? undefined : s.uats[token]
      if (record === undefined || record.consumerKey !== consumerKey) return { error: "Invalid user access token" }
      return record.secret
    })
    if (!("consumerKey" in verified)) return verified
    const record = s.uats[verified.token!]!
    const registration = s.registrations[registrationKey(record.consumerKey, record.userId)]
    if (registration === undefined || !registration.active) return garminError(401, "Invalid user access token")
    req.identify({ userId: record.userId })
    return f(verified.token!, record, registration)
  }

  const seconds = (value: string | null): number | undefined =>
    value !== null && /^\d{1,12}$/.test(value) ? Number(value) : undefined

  const dailiesPull = (req: SimRequestShape) =>
    api(req, (uat, record) => {
      const start = seconds(req.query.get("uploadStartTimeInSeconds"))
      const end = seconds(req.query.get("uploadEndTimeInSeconds"))
      if (start === undefined || end === undefined) return garminError(400, "Missing time range parameters")
      if (end <= start) return garminError(400, "uploadEndTimeInSeconds must be after uploadStartTimeInSeconds")
      if (end - start > MAX_PULL_SECONDS) {
        return garminError(400, `Time range exceeds the maximum of ${MAX_PULL_SECONDS} seconds`)
      }
      const { zone, memberSinceDay } = userTraits("garmin", record.userId)
      const nowSeconds = Math.floor(core.nowMs() / 1000)
      const out: Array<Record<string, unknown>> = []
      const first = Math.max(memberSinceDay, localDayOf(start * 1000, zone.offsetMinutes) - 2)
      const last = localDayOf(end * 1000, zone.offsetMinutes)
      for (let day = first; day <= last; day++) {
        const uploads = uploadTimes(record.userId, day)
        let latest = -1
        uploads.forEach((at, i) => {
          if (at >= start && at < end && at <= nowSeconds) latest = i
        })
        if (latest >= 0) {
          out.push(
            withUser(garminDaily(core.seed, record.userId, formatDay(day), UPLOAD_POINTS[latest]!), record.userId, uat)
          )
        }
      }
      return json(out)
    })

  const backfill = (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) =>
    api(req, (_uat, record, registration) => {
      const type = params["type"] ?? ""
      if (type !== "dailies") return garminError(400, `Endpoint not enabled for summary type: ${type}`)
      const start = seconds(req.query.get("summaryStartTimeInSeconds"))
      const end = seconds(req.query.get("summaryEndTimeInSeconds"))
      if (start === undefined || end === undefined) return garminError(400, "Missing time range parameters")
      if (end <= start) return garminError(400, "summaryEndTimeInSeconds must be after summaryStartTimeInSeconds")
      if (end - start > MAX_BACKFILL_SECONDS) {
        return garminError(400, `Time range exceeds the maximum of ${MAX_BACKFILL_SECONDS} seconds (30 days)`)
      }
      if (!registration.permissions.includes("HISTORICAL_DATA_EXPORT")) {
        return garminError(403, "User has not granted the HISTORICAL_DATA_EXPORT permission")
      }
      const s = core.state
      const key = `${record.consumerKey} ${record.userId} ${type} ${start} ${end}`
      if (s.backfillKeys.includes(key)) return garminError(409, "Duplicate backfill request")
      s.backfillKeys.push(key)
      s.pendingBackfills.push({ consumerKey: record.consumerKey, userId: record.userId, start, end })
      core.commit()
      return Response.empty({ status: 202 })
    })

  const routes = HttpRouter.empty.pipe(
    HttpRouter.post("/oauth-service/oauth/request_token", handle(requestToken)),
    HttpRouter.get("/oauthConfirm", handle(confirm)),
    HttpRouter.post("/oauthConfirm", handle(confirm)),
    HttpRouter.post("/oauth-service/oauth/access_token", handle(accessToken)),
    HttpRouter.get(
      "/wellness-api/rest/user/id",
      handle((req) => api(req, (_uat, record) => json({ userId: record.userId })))
    ),
    HttpRouter.get(
      "/wellness-api/rest/user/permissions",
      handle((req) => api(req, (_uat, _record, registration) => json(registration.permissions)))
    ),
    HttpRouter.del(
      "/wellness-api/rest/user/registration",
      handle((req) =>
        api(req, (_uat, record, registration) => {
          deregister(registration.consumerKey, record.userId)
          return Response.empty({ status: 204 })
        })
      )
    ),
    HttpRouter.get("/wellness-api/rest/dailies", handle(dailiesPull)),
    HttpRouter.get("/wellness-api/rest/backfill/:type", handle(backfill))
  )

  const deregister = (consumerKey: string | undefined, userId: string) => {
    const s = core.state
    for (const registration of Object.values(s.registrations)) {
      if (registration.userId === userId && (consumerKey === undefined || registration.consumerKey === consumerKey)) {
        registration.active = false
      }
    }
    for (const [token, record] of Object.entries(s.uats)) {
      if (record.userId === userId && (consumerKey === undefined || record.consumerKey === consumerKey)) {
        delete s.uats[token]
      }
    }
    s.pendingBackfills = s.pendingBackfills.filter((b) =>
      !(b.userId === userId && (consumerKey === undefined || b.consumerKey === consumerKey))
    )
    core.commit()
  }

  const activeRegistration = (clientId: string | undefined, userId: string) => {
    const consumerKey = core.client(clientId).clientId
    const registration = core.state.registrations[registrationKey(consumerKey, userId)]
    return registration !== undefined && registration.active ? registration : undefined
  }

  const push = (consumerKey: string, url: string, body: unknown) =>
    deliver(url, JSON.stringify(body), { "garmin-client-id": consumerKey })

  const dailiesFor = (userId: string, dates: ReadonlyArray<string>) =>
    dates.flatMap((date) => {
      const day = parseDay(date)
      if (day === undefined) return []
      const progress = progressNow(userId, day)
      return progress <= 0 ? [] : [garminDaily(core.seed, userId, date, progress)]
    })

  const todayOf = (userId: string) =>
    formatDay(localDayOf(core.nowMs(), userTraits("garmin", userId).zone.offsetMinutes))

  const control: GarminControl = {
    ...baseControl(core, {
      resetGrants: () => {
        nonces.clear()
        core.cell.reset()
      },
      // user access tokens do not expire
      expireAccessTokens: () => undefined,
      revokeUser: (userId) => deregister(undefined, userId),
      users: () => Object.entries(core.state.users).map(([userId, u]) => ({ userId, name: u.name }))
    }),
    pushDailies: (url, input) => {
      const registration = activeRegistration(input.clientId, input.userId)
      if (registration === undefined) return Effect.succeed(undefined)
      const dates = input.dates ?? [todayOf(input.userId)]
      return push(registration.consumerKey, url, {
        dailies: dailiesFor(input.userId, dates).map((d) => withUser(d, input.userId, registration.lastUat))
      })
    },
    pingDailies: (url, input) => {
      const registration = activeRegistration(input.clientId, input.userId)
      if (registration === undefined) return Effect.succeed(undefined)
      const window = {
        uploadStartTimeInSeconds: input.uploadStartTimeInSeconds,
        uploadEndTimeInSeconds: input.uploadEndTimeInSeconds
      }
      return push(registration.consumerKey, url, {
        dailies: [{
          userId: input.userId,
          userAccessToken: registration.lastUat,
          ...window,
          callbackURL: core.url("/wellness-api/rest/dailies", window)
        }]
      })
    },
    deliverBackfills: (url, opts) =>
      Effect.gen(function*() {
        const consumerKey = core.client(opts?.clientId).clientId
        const mine = core.state.pendingBackfills.filter((b) => b.consumerKey === consumerKey)
        const deliveries: Array<Delivery> = []
        for (const backfill of mine) {
          const registration = core.state.registrations[registrationKey(consumerKey, backfill.userId)]
          const { zone } = userTraits("garmin", backfill.userId)
          const days: Array<string> = []
          for (
            let day = localDayOf(backfill.start * 1000, zone.offsetMinutes);
            localMidnight(day, zone.offsetMinutes) < backfill.end * 1000;
            day++
          ) {
            if (localMidnight(day, zone.offsetMinutes) >= backfill.start * 1000) days.push(formatDay(day))
          }
          const delivery = yield* push(consumerKey, url, {
            dailies: dailiesFor(backfill.userId, days).map((d) => withUser(d, backfill.userId, registration?.lastUat))
          })
          deliveries.push(delivery)
          if (delivery.status >= 200 && delivery.status < 300) {
            core.state.pendingBackfills = core.state.pendingBackfills.filter((b) => b !== backfill)
            core.commit()
          }
        }
        return deliveries
      }),
    sendDeregistration: (url, input) => {
      const consumerKey = core.client(input.clientId).clientId
      const registration = core.state.registrations[registrationKey(consumerKey, input.userId)]
      return push(consumerKey, url, {
        deregistrations: [{
          userId: input.userId,
          ...(registration === undefined ? {} : { userAccessToken: registration.lastUat })
        }]
      })
    },
    pendingBackfills: () =>
      core.state.pendingBackfills.map((b) => ({
        clientId: b.consumerKey,
        userId: b.userId,
        start: b.start,
        end: b.end
      })),
    dailies: (userId, dates) => dailiesFor(userId, dates)
  }

  return assemble(core, style, routes, control)
}
