/**
 * Garmin activity summaries ("activities", Activity API 7.1: fitness activities the user started on
 * a device or entered in Garmin Connect) as Garmin writes them, and their pure normalisation into
 * `WorkoutRecord`s.
 *
 * An activity is keyed by its `summaryId` and dated by the local date of its start
 * (`startTimeInSeconds + startTimeOffsetInSeconds`); it ends `durationInSeconds` later. Its kind is
 * Garmin's `activityType` (Activity API appendix A: `RUNNING`, `ROAD_BIKING`, `STRENGTH_TRAINING`,
 * `LAP_SWIMMING`, ...) mapped onto the canonical activity types by keyword, with the few names the
 * keywords miss listed here; `sportName` keeps Garmin's type and the raw JSON its `activityName`.
 * Heart rate is missing on activities recorded without a sensor (manual ones among them): null.
 * Energy is `activeKilocalories` as Garmin gives it (the Activity API describes it as the activity's
 * calories, BMR included during the activity; it is not reworked here). A multi-sport activity
 * (`isParent`) and its legs (`parentSummaryId`) are each a workout, as Garmin sends them.
 */
import * as Schema from "effect/Schema"
import type { ActivityType, QuarantinedRecord, WorkoutRecord } from "../Canonical.js"
import { activityTypeOfName } from "../Canonical.js"
import { decodeEach, keepUnknownFields, lastByKey } from "../Shared.js"
import { garminLocalDate, garminOffsetMinutes, garminRawJson, withoutAccessToken } from "./Normalise.js"

const Count = Schema.Number.pipe(Schema.nonNegative())
const Seconds = Schema.Number.pipe(Schema.int())
const optionalCount = Schema.optional(Schema.NullOr(Count))

/** An activity summary: its id, start and duration are required. */
export const GarminActivity = Schema.Struct({
  userId: Schema.optional(Schema.String),
  summaryId: Schema.NonEmptyString,
  activityId: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  activityName: Schema.optional(Schema.NullOr(Schema.String)),
  activityType: Schema.optional(Schema.NullOr(Schema.String)),
  startTimeInSeconds: Seconds,
  startTimeOffsetInSeconds: Schema.optional(Seconds),
  durationInSeconds: Count,
  averageHeartRateInBeatsPerMinute: optionalCount,
  maxHeartRateInBeatsPerMinute: optionalCount,
  activeKilocalories: optionalCount,
  distanceInMeters: optionalCount,
  steps: optionalCount
}).annotations(keepUnknownFields)
export type GarminActivity = typeof GarminActivity.Type

/** Garmin activity types the canonical keywords do not place. */
const garminActivityTypes: Readonly<Record<string, ActivityType>> = {
  VIRTUAL_RIDE: "cycling",
  BMX: "cycling",
  RUCKING: "walking",
  MOUNTAINEERING: "hiking"
}

/** The canonical kind of a Garmin activity type. */
export const garminActivityType = (type: string | null | undefined): ActivityType =>
  (type === null || type === undefined ? undefined : garminActivityTypes[type.toUpperCase()]) ??
    activityTypeOfName(type)

export const normaliseGarminActivity = (activity: GarminActivity, raw: unknown = activity): WorkoutRecord => {
  const start = activity.startTimeInSeconds
  const end = start + activity.durationInSeconds
  return {
    providerRecordId: activity.summaryId,
    date: garminLocalDate(start, activity.startTimeOffsetInSeconds),
    start: new Date(start * 1000),
    end: new Date(end * 1000),
    utcOffsetMinutes: garminOffsetMinutes(activity.startTimeOffsetInSeconds),
    activityType: garminActivityType(activity.activityType),
    sportName: activity.activityType ?? null,
    durationMinutes: activity.durationInSeconds / 60,
    scoreState: "SCORED",
    strain: null,
    loadScoreScale: null,
    averageHeartRate: activity.averageHeartRateInBeatsPerMinute ?? null,
    maxHeartRate: activity.maxHeartRateInBeatsPerMinute ?? null,
    energyKilocalories: activity.activeKilocalories ?? null,
    distanceMeters: activity.distanceInMeters ?? null,
    steps: activity.steps ?? null,
    zoneDurationsJson: "{}",
    rawJson: garminRawJson(raw)
  }
}

/** Garmin's activities read one by one (a bad one quarantined), the last copy of each kept. */
export const normaliseGarminActivities = (
  items: ReadonlyArray<unknown>
): { readonly records: ReadonlyArray<WorkoutRecord>; readonly quarantined: ReadonlyArray<QuarantinedRecord> } => {
  const decoded = decodeEach({
    kind: "Workout",
    schema: GarminActivity,
    items: items.map(withoutAccessToken),
    normalise: normaliseGarminActivity
  })
  return {
    records: lastByKey(decoded.records, (r) => r.providerRecordId),
    quarantined: lastByKey(decoded.quarantined, (q) => q.providerRecordId ?? q.rawJson)
  }
}
