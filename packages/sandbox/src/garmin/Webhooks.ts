/**
 * The Garmin simulator's outbound notifications, sent as Garmin sends them (header
 * `garmin-client-id`, no signature): dailies pushed whole, pings with a callback URL to pull
 * from, pending backfills delivered, and deregistrations.
 */
import * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import { deliver } from "../core/Deliver.js"
import { formatDay, localDayOf, localMidnight, userTraits } from "../core/Random.js"
import type { GarminDays } from "./Api.js"
import type { GarminControl, GarminCore, Registration } from "./Shapes.js"
import { registrationKey } from "./Shapes.js"

export const makeGarminWebhooks = (
  core: GarminCore,
  days: GarminDays,
  activeRegistration: (clientId: string | undefined, userId: string) => Registration | undefined
) => {
  const { dailiesFor, todayOf, withUser } = days

  const push = (consumerKey: string, url: string, body: unknown) =>
    deliver(url, JSON.stringify(body), { "garmin-client-id": consumerKey })
  const pushDailies: GarminControl["pushDailies"] = (url, input) => {
    const registration = activeRegistration(input.clientId, input.userId)
    if (registration === undefined) return Effect.succeed(undefined)
    const dates = input.dates ?? [todayOf(input.userId)]
    return push(registration.consumerKey, url, {
      dailies: dailiesFor(input.userId, dates).map((d) => withUser(d, input.userId, registration.lastUat))
    })
  }

  const pingDailies: GarminControl["pingDailies"] = (url, input) => {
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
  }

  const deliverBackfills: GarminControl["deliverBackfills"] = (url, opts) =>
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
    })

  const sendDeregistration: GarminControl["sendDeregistration"] = (url, input) => {
    const consumerKey = core.client(input.clientId).clientId
    const registration = core.state.registrations[registrationKey(consumerKey, input.userId)]
    return push(consumerKey, url, {
      deregistrations: [{
        userId: input.userId,
        ...(registration === undefined ? {} : { userAccessToken: registration.lastUat })
      }]
    })
  }

  return { pushDailies, pingDailies, deliverBackfills, sendDeregistration }
}
