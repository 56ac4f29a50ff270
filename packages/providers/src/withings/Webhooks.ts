/**
 * Withings notifications in (developer.withings.com, "Keep user's data up to date" and "Notification categories").
 * Before it registers a callback URL, Withings checks it answers: a HEAD request (the subscribe page: "Must respond
 * to HTTP HEAD requests"), which the server must route here as a GET, answered 200 with nothing to do. A
 * notification is a form-encoded POST (`userid`, `appli`, `startdate`/`enddate` as Unix seconds, or `date` as
 * YYYY-MM-DD for event-like categories, `action` for the user's own events) that says what changed and when, never
 * the data; Withings wants a 200 within two seconds, and drops the subscription after repeated failures. It signs
 * nothing, so nothing can be checked beyond the shape: the server only acts for users it has connections of.
 *
 * Categories read here: 1 (weight and body composition), 4 (blood pressure: kept for later, read as measures), 16
 * (activity: daily activity and workouts) and 44 (sleep). 46 with `action=unlink` or `delete` is a withdrawal of
 * the user's grant. Every other category is acknowledged and ignored.
 */
import * as Schema from "effect/Schema"
import { accepted, rejected } from "../internal/Webhooks.js"
import type { WebhookReceiver } from "../Plugin.js"
import { DateString, utcMidnight } from "../Shared.js"

/** The notification categories (`appli`) this plug-in reads or subscribes to. */
export const WithingsAppli = { weight: 1, bloodPressure: 4, activity: 16, sleep: 44, user: 46 } as const

/** What a notification asks for: read this category again over this range. */
export const WithingsNotification = Schema.TaggedStruct("WithingsChange", {
  appli: Schema.Int,
  startdate: Schema.optional(Schema.Int),
  enddate: Schema.optional(Schema.Int),
  date: Schema.optional(DateString)
})
export type WithingsNotification = typeof WithingsNotification.Type

const readCategories: ReadonlyArray<number> = [
  WithingsAppli.weight,
  WithingsAppli.bloodPressure,
  WithingsAppli.activity,
  WithingsAppli.sleep
]

const integerPattern = /^\d{1,15}$/

const integer = (value: string | null): number | undefined =>
  value !== null && integerPattern.test(value) ? Number(value) : undefined

export const withingsWebhooks: WebhookReceiver = (request) => {
  // Withings' check of the callback URL (a HEAD, or a GET): nothing to read, answer 200.
  if (request.method === "GET") return accepted(200, [])
  const form = new URLSearchParams(request.body)
  const userId = form.get("userid")
  const appli = integer(form.get("appli"))
  if (userId === null || !integerPattern.test(userId) || appli === undefined) {
    return rejected(400, "Malformed notification: userid and appli are required")
  }
  if (appli === WithingsAppli.user) {
    const action = form.get("action")
    return action === "unlink" || action === "delete" ? accepted(200, [], [userId]) : accepted(200, [])
  }
  if (!readCategories.includes(appli)) return accepted(200, [])
  const startdate = integer(form.get("startdate"))
  const enddate = integer(form.get("enddate"))
  const date = form.get("date")
  const notification = WithingsNotification.make({
    appli,
    ...(startdate === undefined ? {} : { startdate }),
    ...(enddate === undefined ? {} : { enddate }),
    ...(date !== null && !Number.isNaN(utcMidnight(date)) ? { date } : {})
  })
  return accepted(200, [{ providerUserId: userId, notification }])
}
