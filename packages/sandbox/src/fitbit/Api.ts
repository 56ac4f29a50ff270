/**
 * The Fitbit simulator's Web API: bearer auth with scopes, the `-`-or-own-id path user and the
 * hourly per-user rate limit; profile, the daily activity summary, and subscriptions (create,
 * delete, list) per collection or for all of them.
 */
import { HttpServerResponse as Response } from "@effect/platform"
import type { HttpServerResponse } from "@effect/platform"
import { parseBearer } from "../core/Credentials.js"
import type { AccessRecord } from "../core/OAuth2.js"
import { authenticate } from "../core/OAuth2.js"
import { DAY_MS, formatDay, localDayOf, localMidnight, parseDay, round, userTraits } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import { fitbitDailySummary, traitsOf, unitsOf } from "./Data.js"
import type { FitbitCore, FitbitSubscription, StoredSubscription } from "./Shapes.js"
import {
  allCollectionScopes,
  collectionScopes,
  FITBIT_COLLECTIONS,
  fitbitError,
  HOUR_MS,
  RATE_LIMIT,
  rateHeaders,
  tooMany
} from "./Shapes.js"

export const subscriptionBody = (sub: StoredSubscription): FitbitSubscription => ({
  collectionType: sub.collectionType,
  ownerId: sub.ownerId,
  ownerType: "user",
  subscriberId: sub.subscriberId,
  subscriptionId: sub.subscriptionId
})

export const makeFitbitApi = (core: FitbitCore) => {
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

  return { profile, daily, subscription, listSubscriptions }
}
