/**
 * The Garmin simulator's Health and Activity APIs: calls authenticated with a user's OAuth 1.0a
 * token (signed) or OAuth 2.0 bearer token; a token whose user deregistered gets 403, an unknown or
 * expired one 401. Each summary type (dailies, sleeps, activities, hrv, pulseOx, bodyComps) is
 * pulled by upload window (at most a day) with OAuth 1.0a signed calls; with an OAuth 2.0 bearer
 * token alone a pull is refused (`InvalidPullTokenException`), as Garmin refuses unsolicited pulls:
 * an OAuth 2.0 app pulls only a ping's `callbackURL`, whose `token=` pull token names the user,
 * the summary type and the window. The Health API's types need the user's `HEALTH_EXPORT`
 * permission, activities `ACTIVITY_EXPORT` (412 otherwise); backfill requests (at most 90 days for
 * the Health API v1.2.2's types, 30 for activities, Activity API v1.2.3) also need
 * `HISTORICAL_DATA_EXPORT` (412), and a duplicate request is 409.
 */
import * as Response from "@effect/platform/HttpServerResponse"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { parseBearer } from "../core/Credentials.js"
import { authenticate } from "../core/OAuth2.js"
import { formatDay, localDayOf, tokenKey, userTraits } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { makeGarminDays } from "./Data.js"
import { garminDaily, UPLOAD_POINTS } from "./Data.js"
import type { makeGarminOAuth } from "./OAuth.js"
import type { GarminCore, GarminPulledType, Registration } from "./Shapes.js"
import {
  garminError,
  HEALTH_EXPORT,
  HISTORICAL_DATA_EXPORT,
  MAX_BACKFILL_SECONDS,
  MAX_PULL_SECONDS,
  oauth2State,
  pullTokens,
  registrationKey
} from "./Shapes.js"
import type { GarminSummaryType } from "./Summaries.js"
import { garminSummariesBetween, garminSummaryTypes } from "./Summaries.js"

/** What each pulled type needs and how far one backfill request may reach. */
export const pulledTypes: Readonly<
  Record<GarminPulledType, { readonly path: string; readonly permission: string; readonly maxBackfillSeconds: number }>
> = {
  dailies: { path: "dailies", permission: HEALTH_EXPORT, maxBackfillSeconds: MAX_BACKFILL_SECONDS },
  ...Object.fromEntries(
    Object.entries(garminSummaryTypes).map(([type, spec]) => [type, {
      path: spec.path,
      permission: spec.permission,
      maxBackfillSeconds: spec.maxBackfillDays * 86_400
    }])
  ) as Record<
    GarminSummaryType,
    { readonly path: string; readonly permission: string; readonly maxBackfillSeconds: number }
  >
}

/** The pulled type of a path segment (`pulseOx` for pulse ox), if the simulator serves it. */
export const pulledTypeOfPath = (path: string): GarminPulledType | undefined =>
  (Object.keys(pulledTypes) as Array<GarminPulledType>).find((type) => pulledTypes[type].path === path)

/** Who a call is for: the client, the user, and the OAuth 1.0a token when the call was signed with one. */
export interface Caller {
  readonly consumerKey: string
  readonly userId: string
  readonly uat: string | null
}

export const makeGarminApi = (core: GarminCore, verifySigned: GarminOAuth["verifySigned"], days: GarminDays) => {
  const { uploadTimes, withUser } = days

  /** The caller of a signed or bearer call, or the answer that refuses it. */
  const caller = (req: SimRequestShape): Caller | HttpServerResponse.HttpServerResponse => {
    const s = core.state
    const bearer = parseBearer(req.headers["authorization"])
    if (bearer !== undefined) {
      const auth = authenticate(oauth2State(s), bearer, core.nowMs())
      if (auth._tag === "Expired") return garminError(401, "Access token expired")
      if (auth._tag !== "Ok") return garminError(401, "Invalid access token")
      req.identify({ clientId: auth.record.clientId, userId: auth.record.userId })
      return { consumerKey: auth.record.clientId, userId: auth.record.userId, uat: null }
    }
    const verified = verifySigned(req, (consumerKey, token) => {
      const record = token === undefined ? undefined : s.uats[token]
      if (record === undefined || record.consumerKey !== consumerKey) return { error: "Invalid user access token" }
      return record.secret
    })
    if (!("consumerKey" in verified)) return verified
    const record = s.uats[verified.token!]!
    req.identify({ userId: record.userId })
    if (record.revoked === true) return garminError(403, "User access token revoked")
    return { consumerKey: record.consumerKey, userId: record.userId, uat: verified.token! }
  }

  /** A call by a registered user: a user who deregistered (or was revoked) gets 403. */
  const api = (
    req: SimRequestShape,
    f: (who: Caller, registration: Registration) => HttpServerResponse.HttpServerResponse
  ) => {
    const who = caller(req)
    if (!("userId" in who)) return who
    const registration = core.state.registrations[registrationKey(who.consumerKey, who.userId)]
    if (registration === undefined || !registration.active) return garminError(403, "User access token revoked")
    return f(who, registration)
  }

  const seconds = (value: string | null): number | undefined =>
    value !== null && /^\d{1,12}$/.test(value) ? Number(value) : undefined

  const notPermitted = (type: string) =>
    garminError(412, `User has not granted permission for summary type: ${type.toUpperCase()}`)

  /** What a type's pull window carries as of now: the summaries uploaded in it. */
  const uploaded = (type: GarminPulledType, userId: string, uat: string | null, start: number, end: number) => {
    if (type === "dailies") return dailiesUploaded(userId, uat, start, end)
    const now = Math.floor(core.nowMs() / 1000)
    return garminSummariesBetween(core.seed, userId, type, "uploadAt", start, Math.min(end, now + 1))
      .map((item) => withUser(item.summary, userId, uat ?? undefined))
  }

  /** The latest upload of each local day inside the upload window, as of now. */
  const dailiesUploaded = (userId: string, uat: string | null, start: number, end: number) => {
    const { zone, memberSinceDay } = userTraits("garmin", userId)
    const nowSeconds = Math.floor(core.nowMs() / 1000)
    const out: Array<Record<string, unknown>> = []
    const first = Math.max(memberSinceDay, localDayOf(start * 1000, zone.offsetMinutes) - 2)
    const last = localDayOf(end * 1000, zone.offsetMinutes)
    for (let day = first; day <= last; day++) {
      const uploads = uploadTimes(userId, day)
      let latest = -1
      uploads.forEach((at, i) => {
        if (at >= start && at < end && at <= nowSeconds) latest = i
      })
      if (latest >= 0) {
        out.push(
          withUser(garminDaily(core.seed, userId, formatDay(day), UPLOAD_POINTS[latest]!), userId, uat ?? undefined)
        )
      }
    }
    return out
  }

  /** `GET /wellness-api/rest/{type}`: an OAuth 1.0a pull, or a ping's callback with its pull token. */
  const summaryPull = (type: GarminPulledType) => (req: SimRequestShape) => {
    const start = seconds(req.query.get("uploadStartTimeInSeconds"))
    const end = seconds(req.query.get("uploadEndTimeInSeconds"))
    const pullToken = req.query.get("token")
    const { permission } = pulledTypes[type]
    if (pullToken !== null) {
      const record = pullTokens(core.state)[tokenKey(pullToken)]
      if (
        record === undefined || record.expiresAt <= core.nowMs() || record.start !== start || record.end !== end ||
        (record.summaryType ?? "dailies") !== type
      ) {
        return garminError(400, "InvalidPullTokenException failure")
      }
      req.identify({ clientId: record.consumerKey, userId: record.userId })
      // Credentials sent along must be the same user's.
      if (req.headers["authorization"] !== undefined) {
        const who = caller(req)
        if (!("userId" in who)) return who
        if (who.userId !== record.userId || who.consumerKey !== record.consumerKey) {
          return garminError(400, "InvalidPullTokenException failure")
        }
      }
      const registration = core.state.registrations[registrationKey(record.consumerKey, record.userId)]
      if (registration === undefined || !registration.active) return garminError(403, "User access token revoked")
      if (!registration.permissions.includes(permission)) return notPermitted(type)
      return json(uploaded(type, record.userId, null, record.start, record.end))
    }
    return api(req, (who, registration) => {
      // OAuth 2.0 apps may not pull on their own: only what a ping announced, with its token.
      if (who.uat === null) return garminError(400, "InvalidPullTokenException failure")
      if (start === undefined || end === undefined) return garminError(400, "Missing time range parameters")
      if (end <= start) return garminError(400, "uploadEndTimeInSeconds must be after uploadStartTimeInSeconds")
      if (end - start > MAX_PULL_SECONDS) {
        return garminError(400, `Time range exceeds the maximum of ${MAX_PULL_SECONDS} seconds`)
      }
      if (!registration.permissions.includes(permission)) return notPermitted(type)
      return json(uploaded(type, who.userId, registration.oauth2 === true ? null : who.uat, start, end))
    })
  }

  /** `GET /wellness-api/rest/dailies`. */
  const dailiesPull = summaryPull("dailies")

  const backfill = (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) =>
    api(req, (who, registration) => {
      const path = params["type"] ?? ""
      const type = pulledTypeOfPath(path)
      if (type === undefined) return garminError(400, `Endpoint not enabled for summary type: ${path}`)
      const { maxBackfillSeconds, permission } = pulledTypes[type]
      const start = seconds(req.query.get("summaryStartTimeInSeconds"))
      const end = seconds(req.query.get("summaryEndTimeInSeconds"))
      if (start === undefined || end === undefined) return garminError(400, "Missing time range parameters")
      if (end <= start) return garminError(400, "summaryEndTimeInSeconds must be after summaryStartTimeInSeconds")
      if (end - start > maxBackfillSeconds) {
        return garminError(
          400,
          `Time range exceeds the maximum of ${maxBackfillSeconds} seconds (${maxBackfillSeconds / 86_400} days)`
        )
      }
      if (!registration.permissions.includes(permission)) return notPermitted(type)
      if (!registration.permissions.includes(HISTORICAL_DATA_EXPORT)) {
        return garminError(412, "User has not granted the HISTORICAL_DATA_EXPORT permission")
      }
      const s = core.state
      const key = `${who.consumerKey} ${who.userId} ${type} ${start} ${end}`
      if (s.backfillKeys.includes(key)) return garminError(409, "Duplicate backfill request")
      s.backfillKeys.push(key)
      s.pendingBackfills.push({ consumerKey: who.consumerKey, userId: who.userId, start, end, summaryType: type })
      core.commit()
      return Response.empty({ status: 202 })
    })

  return { api, dailiesPull, summaryPull, backfill }
}

/** The OAuth pieces the API checks signatures with. */
export type GarminOAuth = ReturnType<typeof makeGarminOAuth>
/** The day helpers the API reads uploads with. */
export type GarminDays = ReturnType<typeof makeGarminDays>
