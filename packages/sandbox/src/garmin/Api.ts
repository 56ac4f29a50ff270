/**
 * The Garmin simulator's Health API: calls signed with a live user access token, the dailies
 * pull by upload window (at most a day), and backfill requests (at most 30 days, needing
 * `HISTORICAL_DATA_EXPORT`, duplicates refused).
 */
import { HttpServerResponse as Response } from "@effect/platform"
import type { HttpServerResponse } from "@effect/platform"
import { formatDay, localDayOf, userTraits } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { makeGarminDays } from "./Data.js"
import { garminDaily, UPLOAD_POINTS } from "./Data.js"
import type { makeGarminOAuth } from "./OAuth.js"
import type { GarminCore, Registration, UatRecord } from "./Shapes.js"
import { garminError, MAX_BACKFILL_SECONDS, MAX_PULL_SECONDS, registrationKey } from "./Shapes.js"

export const makeGarminApi = (core: GarminCore, verifySigned: GarminOAuth["verifySigned"], days: GarminDays) => {
  const { uploadTimes, withUser } = days

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

  return { api, dailiesPull, backfill }
}

/** The OAuth pieces the API checks signatures with. */
export type GarminOAuth = ReturnType<typeof makeGarminOAuth>
/** The day helpers the API reads uploads with. */
export type GarminDays = ReturnType<typeof makeGarminDays>
