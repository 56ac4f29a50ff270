/**
 * The Garmin summary types PulseBridge reads, and what each needs: its key in push and ping bodies,
 * its REST path (pulls and ping callbacks) and backfill path, the user permission that allows it,
 * the longest backfill request Garmin takes, and its normaliser. Also the summaries of a push body
 * and the callbacks of a ping body, and one batch out of several.
 *
 * Keys, paths and limits: Health API 1.2.2 (push and ping keys `dailies`, `sleeps`, `hrv`,
 * `pulseox`, `bodyComps`; backfill paths `dailies`, `sleeps`, `hrv`, `pulseOx`, `bodyComps`, up to
 * 90 days a request) and Activity API 1.2.3 (key and paths `activities`, up to 30 days a request).
 * A pulse ox pull is `/wellness-api/rest/pulseOx`, as its backfill; a callback spelled `pulseox` is
 * read as the same type. Activities need the user's `ACTIVITY_EXPORT`, the others `HEALTH_EXPORT`.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { CanonicalBatch } from "../Canonical.js"
import { emptyBatch } from "../Canonical.js"
import { batchOf } from "../Shared.js"
import { activityExport, healthExport } from "./Auth.js"
import { normaliseGarminDailies } from "./Normalise.js"
import { normaliseGarminActivities } from "./NormaliseActivities.js"
import { normaliseGarminBodyComps } from "./NormaliseBodyComps.js"
import {
  garminRestingHeartRates,
  mergeGarminRecoveries,
  normaliseGarminHrvs,
  normaliseGarminPulseOxes
} from "./NormaliseRecovery.js"
import { normaliseGarminSleeps } from "./NormaliseSleeps.js"

export const garminSummaryTypes = ["dailies", "sleeps", "activities", "hrv", "pulseox", "bodyComps"] as const
export type GarminSummaryType = typeof garminSummaryTypes[number]

export interface GarminSummarySpec {
  readonly type: GarminSummaryType
  /** The pull path; a ping's callback names it. */
  readonly path: string
  /** Other spellings of the pull path a callback may carry. */
  readonly aliases: ReadonlyArray<string>
  readonly backfillPath: string
  /** The user permission Garmin asks for this type (412 without it). */
  readonly permission: string
  /** The canonical kind a note about this type is filed under. */
  readonly kind: string
  readonly maxBackfillSeconds: number
  readonly read: (items: ReadonlyArray<unknown>, userId: string) => CanonicalBatch
}

const rest = "/wellness-api/rest"
const healthApiBackfillSeconds = 90 * 86_400
const activityApiBackfillSeconds = 30 * 86_400

const health = (
  type: GarminSummaryType,
  segment: string,
  kind: string,
  read: GarminSummarySpec["read"],
  aliases: ReadonlyArray<string> = []
): GarminSummarySpec => ({
  type,
  path: `${rest}/${segment}`,
  aliases: aliases.map((alias) => `${rest}/${alias}`),
  backfillPath: `${rest}/backfill/${segment}`,
  permission: healthExport,
  kind,
  maxBackfillSeconds: healthApiBackfillSeconds,
  read
})

export const garminSummaries: Readonly<Record<GarminSummaryType, GarminSummarySpec>> = {
  dailies: health("dailies", "dailies", "DailyActivity", (items, userId) => {
    const { quarantined, records } = normaliseGarminDailies(items, userId)
    return batchOf({ dailyActivity: records, recovery: garminRestingHeartRates(records), quarantined })
  }),
  sleeps: health("sleeps", "sleeps", "Sleep", (items, userId) => {
    const { quarantined, records } = normaliseGarminSleeps(items, userId)
    return batchOf({ sleep: records, quarantined })
  }),
  activities: {
    type: "activities",
    path: `${rest}/activities`,
    aliases: [],
    backfillPath: `${rest}/backfill/activities`,
    permission: activityExport,
    kind: "Workout",
    maxBackfillSeconds: activityApiBackfillSeconds,
    read: (items) => {
      const { quarantined, records } = normaliseGarminActivities(items)
      return batchOf({ workouts: records, quarantined })
    }
  },
  hrv: health("hrv", "hrv", "Recovery", (items) => {
    const { quarantined, records } = normaliseGarminHrvs(items)
    return batchOf({ recovery: records, quarantined })
  }),
  pulseox: health("pulseox", "pulseOx", "Recovery", (items) => {
    const { quarantined, records } = normaliseGarminPulseOxes(items)
    return batchOf({ recovery: records, quarantined })
  }, ["pulseox"]),
  bodyComps: health("bodyComps", "bodyComps", "BodyMeasurement", (items) => {
    const { quarantined, records } = normaliseGarminBodyComps(items)
    return batchOf({ bodyMeasurements: records, quarantined })
  })
}

/**
 * The summary type a pull URL's path is for, and the path as the URL spells it (a prefix before
 * `/wellness-api` is allowed), if any.
 */
export const garminSummaryOfPath = (
  pathname: string
): { readonly spec: GarminSummarySpec; readonly path: string } | undefined => {
  for (const type of garminSummaryTypes) {
    const spec = garminSummaries[type]
    for (const path of [spec.path, ...spec.aliases]) {
      const at = pathname.indexOf(path)
      if (at !== -1 && pathname.slice(at) === path) return { spec, path }
    }
  }
  return undefined
}

/** Several batches as one, in order; the recovery parts of one day merged. */
export const joinBatches = (batches: ReadonlyArray<CanonicalBatch>): CanonicalBatch => {
  const out = Object.fromEntries(Object.keys(emptyBatch).map((key) => [key, []])) as unknown as {
    -readonly [K in keyof CanonicalBatch]: Array<CanonicalBatch[K][number]>
  }
  for (const batch of batches) {
    for (const key of Object.keys(emptyBatch) as Array<keyof CanonicalBatch>) {
      ;(out[key] as Array<unknown>).push(...batch[key])
    }
  }
  return { ...out, recovery: mergeGarminRecoveries(out.recovery) }
}

// ---- deliveries ----

const Items = Schema.optional(Schema.Array(Schema.Unknown))

/** A push or ping body: one list per summary type, and the lifecycle lists. */
export const GarminEnvelope = Schema.Struct({
  dailies: Items,
  sleeps: Items,
  activities: Items,
  hrv: Items,
  pulseox: Items,
  bodyComps: Items,
  userPermissionsChange: Items
})
const decodeEnvelope = Schema.decodeUnknownEither(GarminEnvelope)

const PushedItem = Schema.Struct({ userId: Schema.String, callbackURL: Schema.optional(Schema.Unknown) })
const decodePushedItem = Schema.decodeUnknownEither(PushedItem)

/**
 * The summaries of a push delivery (`{"dailies":[...], "sleeps":[...], ...}`) for one user, by
 * type: items of other users and ping items are left out, as is everything when the body is not an
 * envelope.
 */
export const garminPushSummaries = (
  body: unknown,
  userId: string
): Readonly<Partial<Record<GarminSummaryType, ReadonlyArray<unknown>>>> => {
  const envelope = decodeEnvelope(body)
  if (Either.isLeft(envelope)) return {}
  const out: Partial<Record<GarminSummaryType, ReadonlyArray<unknown>>> = {}
  for (const type of garminSummaryTypes) {
    const items = (envelope.right[type] ?? []).filter((item) => {
      const head = decodePushedItem(item)
      return Either.isRight(head) && head.right.userId === userId && head.right.callbackURL === undefined
    })
    if (items.length > 0) out[type] = items
  }
  return out
}

/** The dailies of a push delivery for one user (see `garminPushSummaries`). */
export const garminPushDailies = (body: unknown, userId: string): ReadonlyArray<unknown> =>
  garminPushSummaries(body, userId).dailies ?? []

const PingItem = Schema.Struct({ userId: Schema.String, callbackURL: Schema.String })
const decodePingItem = Schema.decodeUnknownEither(PingItem)

/** The pull URLs of a ping delivery (`{"sleeps":[{userId, callbackURL, ...}], ...}`), for `pullGarminCallback`. */
export const garminPingCallbacks = (
  body: unknown
): ReadonlyArray<{ readonly userId: string; readonly callbackUrl: string }> => {
  const envelope = decodeEnvelope(body)
  if (Either.isLeft(envelope)) return []
  return garminSummaryTypes.flatMap((type) =>
    (envelope.right[type] ?? []).flatMap((item) => {
      const decoded = decodePingItem(item)
      return Either.isRight(decoded) ? [{ userId: decoded.right.userId, callbackUrl: decoded.right.callbackURL }] : []
    })
  )
}
