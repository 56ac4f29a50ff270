/**
 * The Garmin simulator's outbound notifications, sent as Garmin sends them (header
 * `garmin-client-id`, no signature): summaries of a type pushed whole under the type's key
 * (`dailies`, `sleeps`, `activities`, `hrv`, `pulseox`, `bodyComps`), pings with a callback URL to
 * pull from, pending backfills delivered, permission changes, and deregistrations. Items name the
 * user by `userId`; a user still on OAuth 1.0a also gets `userAccessToken`, a user on OAuth 2.0
 * (connected so, or moved by token exchange) never does, and their pings' `callbackURL` carries
 * a `token=` pull token.
 */
import * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import { deliver } from "../core/Deliver.js"
import { formatDay, localDayOf, localMidnight, randomToken, tokenKey, userTraits } from "../core/Random.js"
import type { GarminDays } from "./Api.js"
import { pulledTypes } from "./Api.js"
import type { GarminControl, GarminCore, GarminPulledType, Registration } from "./Shapes.js"
import { PULL_TOKEN_TTL_MS, pullTokens, registrationKey } from "./Shapes.js"
import { garminSummariesBetween, garminSummariesOf, garminSummaryTypes } from "./Summaries.js"

/** The key of a type's list in push and ping bodies. */
const keyOf = (type: GarminPulledType): string => (type === "dailies" ? "dailies" : garminSummaryTypes[type].key)

export const makeGarminWebhooks = (
  core: GarminCore,
  days: GarminDays,
  activeRegistration: (clientId: string | undefined, userId: string) => Registration | undefined
) => {
  const { dailiesFor, todayOf, withUser } = days

  /** A type's summaries filed under `dates` as they stand now (uploaded by now), without the user fields. */
  const summariesFor = (
    userId: string,
    type: GarminPulledType,
    dates: ReadonlyArray<string>
  ): ReadonlyArray<Record<string, unknown>> =>
    type === "dailies"
      ? dailiesFor(userId, dates)
      : dates.flatMap((date) => garminSummariesOf(core.seed, userId, type, date))
        .filter((item) => item.uploadAt * 1000 <= core.nowMs())
        .map((item) => item.summary)

  /** A type's summaries dated in [start, end) (Unix seconds) and uploaded by now: what a backfill delivers. */
  const summariesDated = (userId: string, type: GarminPulledType, start: number, end: number) => {
    if (type !== "dailies") {
      return garminSummariesBetween(core.seed, userId, type, "summaryAt", start, end)
        .filter((item) => item.uploadAt * 1000 <= core.nowMs())
        .map((item) => item.summary)
    }
    const { zone } = userTraits("garmin", userId)
    const dates: Array<string> = []
    for (
      let day = localDayOf(start * 1000, zone.offsetMinutes);
      localMidnight(day, zone.offsetMinutes) < end * 1000;
      day++
    ) {
      if (localMidnight(day, zone.offsetMinutes) >= start * 1000) dates.push(formatDay(day))
    }
    return dailiesFor(userId, dates)
  }

  /** The OAuth 1.0a token a delivery names: none once the user is on OAuth 2.0. */
  const uatOf = (registration: Registration | undefined) =>
    registration === undefined || registration.oauth2 === true ? undefined : registration.lastUat ?? undefined

  const push = (consumerKey: string, url: string, body: unknown) =>
    deliver(url, JSON.stringify(body), { "garmin-client-id": consumerKey })
  const pushSummaries: GarminControl["pushSummaries"] = (url, input) => {
    const registration = activeRegistration(input.clientId, input.userId)
    if (registration === undefined) return Effect.succeed(undefined)
    const dates = input.dates ?? [todayOf(input.userId)]
    return push(registration.consumerKey, url, {
      [keyOf(input.summaryType)]: summariesFor(input.userId, input.summaryType, dates).map((d) =>
        withUser(d, input.userId, uatOf(registration))
      )
    })
  }
  const pushDailies: GarminControl["pushDailies"] = (url, input) =>
    pushSummaries(url, { ...input, summaryType: "dailies" })

  const pingSummaries: GarminControl["pingSummaries"] = (url, input) => {
    const registration = activeRegistration(input.clientId, input.userId)
    if (registration === undefined) return Effect.succeed(undefined)
    const window = {
      uploadStartTimeInSeconds: input.uploadStartTimeInSeconds,
      uploadEndTimeInSeconds: input.uploadEndTimeInSeconds
    }
    const uat = uatOf(registration)
    let query: Record<string, string | number> = window
    if (uat === undefined) {
      const token = randomToken(24)
      pullTokens(core.state)[tokenKey(token)] = {
        consumerKey: registration.consumerKey,
        userId: input.userId,
        start: input.uploadStartTimeInSeconds,
        end: input.uploadEndTimeInSeconds,
        expiresAt: core.nowMs() + PULL_TOKEN_TTL_MS,
        summaryType: input.summaryType
      }
      core.commit()
      query = { ...window, token }
    }
    return push(registration.consumerKey, url, {
      [keyOf(input.summaryType)]: [{
        userId: input.userId,
        ...(uat === undefined ? {} : { userAccessToken: uat }),
        ...window,
        callbackURL: core.url(`/wellness-api/rest/${pulledTypes[input.summaryType].path}`, query)
      }]
    })
  }
  const pingDailies: GarminControl["pingDailies"] = (url, input) =>
    pingSummaries(url, { ...input, summaryType: "dailies" })

  const deliverBackfills: GarminControl["deliverBackfills"] = (url, opts) =>
    Effect.gen(function*() {
      const consumerKey = core.client(opts?.clientId).clientId
      const mine = core.state.pendingBackfills.filter((b) => b.consumerKey === consumerKey)
      const deliveries: Array<Delivery> = []
      for (const backfill of mine) {
        const registration = core.state.registrations[registrationKey(consumerKey, backfill.userId)]
        const type = backfill.summaryType ?? "dailies"
        const delivery = yield* push(consumerKey, url, {
          [keyOf(type)]: summariesDated(backfill.userId, type, backfill.start, backfill.end).map((d) =>
            withUser(d, backfill.userId, uatOf(registration))
          )
        })
        deliveries.push(delivery)
        if (delivery.status >= 200 && delivery.status < 300) {
          core.state.pendingBackfills = core.state.pendingBackfills.filter((b) => b !== backfill)
          core.commit()
        }
      }
      return deliveries
    })

  const changePermissions: GarminControl["changePermissions"] = (url, input) => {
    const registration = activeRegistration(input.clientId, input.userId)
    if (registration === undefined) return Effect.succeed(undefined)
    registration.permissions = [...input.permissions]
    core.commit()
    const changeTimeInSeconds = Math.floor(core.nowMs() / 1000)
    const uat = uatOf(registration)
    return push(registration.consumerKey, url, {
      userPermissionsChange: [{
        userId: input.userId,
        ...(uat === undefined ? {} : { userAccessToken: uat }),
        summaryId: `x${changeTimeInSeconds.toString(16)}-${input.userId.slice(0, 8)}`,
        permissions: registration.permissions,
        changeTimeInSeconds
      }]
    })
  }

  const sendDeregistration: GarminControl["sendDeregistration"] = (url, input) => {
    const consumerKey = core.client(input.clientId).clientId
    const uat = uatOf(core.state.registrations[registrationKey(consumerKey, input.userId)])
    return push(consumerKey, url, {
      deregistrations: [{ userId: input.userId, ...(uat === undefined ? {} : { userAccessToken: uat }) }]
    })
  }

  return {
    pushDailies,
    pushSummaries,
    pingDailies,
    pingSummaries,
    deliverBackfills,
    changePermissions,
    sendDeregistration,
    summaries: summariesFor
  }
}
