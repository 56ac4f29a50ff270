/**
 * Sleep, workouts, recovery and body measurements: four canonical record types read from every provider that has
 * the data, served beside the daily reads (endpoints 10-14) and built the same way. docs/data-types.md gives,
 * per type and provider, the source, the field mapping, the units and the dating rule.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import {
  ConnectionId,
  HealthRecordId,
  LocalDate,
  PagedProviderDateRange,
  Provider,
  Timestamp,
  UserId
} from "./Common.js"
import { BadRequest, Forbidden, NotFound } from "./Errors.js"

const nullableNumber = (description: string) => Schema.NullOr(Schema.Number).annotations({ description })

/** What every record of the four types carries. */
const recordFields = {
  id: HealthRecordId.annotations({
    description: "PulseBridge's id of the record (kept when the provider sends it again)"
  }),
  providerRecordId: Schema.String.annotations({ description: "The provider's own id of the record" }),
  connectionId: ConnectionId,
  provider: Provider
}

const scoreScale = Schema.NullOr(Schema.String).annotations({
  description: "Names the scale of `providerScore` (e.g. `WhoopRecovery0To100`, `GarminSleepScore0To100`); null " +
    "when there is no score. Provider scores are passed on as given, never rescaled"
})

export const ActivityType = Schema.Literal(
  "running",
  "cycling",
  "walking",
  "hiking",
  "swimming",
  "strength",
  "yoga",
  "hiit",
  "rowing",
  "elliptical",
  "sports",
  "other"
).annotations({
  identifier: "ActivityType",
  description: "The kind of workout, one of a small list every provider's own activity names are mapped onto " +
    "(`providerActivityName` keeps the provider's name)"
})

const sleepFields = {
  ...recordFields,
  date: LocalDate.annotations({
    description: "The day the sleeper wakes into: the local date of `endUtc` at `utcOffsetMinutes` (WHOOP: the day " +
      "of the cycle the sleep opens, the same day)"
  }),
  startUtc: Timestamp,
  endUtc: Timestamp,
  utcOffsetMinutes: nullableNumber("Minutes east of UTC of the sleeper's clock, when the provider says"),
  isNap: Schema.Boolean,
  inBedMinutes: nullableNumber("Time in bed"),
  asleepMinutes: nullableNumber("Light + deep + REM sleep, or the provider's own asleep total without stages"),
  awakeMinutes: nullableNumber("Time awake after first falling asleep"),
  lightMinutes: Schema.NullOr(Schema.Number),
  deepMinutes: Schema.NullOr(Schema.Number),
  remMinutes: Schema.NullOr(Schema.Number),
  efficiencyPercent: nullableNumber("Asleep / in bed, 0-100"),
  latencyMinutes: nullableNumber("Minutes from the start of the session to falling asleep"),
  averageHeartRate: nullableNumber("bpm, over the night"),
  lowestHeartRate: nullableNumber("bpm, over the night"),
  hrvRmssdMs: nullableNumber("Heart rate variability over the night, RMSSD in milliseconds"),
  respiratoryRate: nullableNumber("Breaths per minute"),
  spo2Percent: nullableNumber("Blood oxygen saturation over the night, %"),
  providerScore: nullableNumber("The provider's own sleep score, on `providerScoreScale`"),
  providerScoreScale: scoreScale
}

export class SleepSession extends Schema.Class<SleepSession>("SleepSession")(sleepFields, {
  description: "A sleep or nap. null: the provider has no source for the value"
}) {}

export class SleepSessionDetail extends Schema.Class<SleepSessionDetail>("SleepSessionDetail")({
  ...sleepFields,
  rawJson: Schema.String.annotations({ description: "The provider's JSON of the session" })
}) {}

const workoutFields = {
  ...recordFields,
  date: LocalDate.annotations({ description: "The local date of `startUtc` at `utcOffsetMinutes`" }),
  startUtc: Timestamp,
  endUtc: Timestamp,
  utcOffsetMinutes: nullableNumber("Minutes east of UTC of the athlete's clock, when the provider says"),
  activityType: ActivityType,
  providerActivityName: Schema.NullOr(Schema.String).annotations({
    description: "The provider's own name of the activity (e.g. WHOOP `running`, Garmin `STRENGTH_TRAINING`)"
  }),
  durationMinutes: Schema.Number.annotations({ description: "Active time when the provider says, else end - start" }),
  activeEnergyKilocalories: nullableNumber("kcal spent in the workout (WHOOP kilojoules / 4.184)"),
  distanceMeters: Schema.NullOr(Schema.Number),
  steps: Schema.NullOr(Schema.Number),
  averageHeartRate: nullableNumber("bpm"),
  maxHeartRate: nullableNumber("bpm"),
  zoneDurationsJson: Schema.String.annotations({
    description: "JSON text of minutes per heart-rate zone (`{\"zone0\": m, ...}`, as in the daily load); `{}` " +
      "when unknown"
  }),
  loadScore: nullableNumber("The provider's load of the workout on `loadScoreScale` (WHOOP strain)"),
  loadScoreScale: Schema.NullOr(Schema.String).annotations({ description: "e.g. `WhoopStrain0To21`" })
}

export class Workout extends Schema.Class<Workout>("Workout")(workoutFields, {
  description: "A workout. null: the provider has no source for the value"
}) {}

export class WorkoutDetail extends Schema.Class<WorkoutDetail>("WorkoutDetail")({
  ...workoutFields,
  rawJson: Schema.String.annotations({ description: "The provider's JSON of the workout" })
}) {}

export class Recovery extends Schema.Class<Recovery>("Recovery")({
  ...recordFields,
  date: LocalDate.annotations({ description: "The day the values describe (the morning they are measured on)" }),
  restingHeartRate: nullableNumber("bpm"),
  hrvRmssdMs: nullableNumber("Heart rate variability, RMSSD in milliseconds"),
  spo2Percent: nullableNumber("Blood oxygen saturation, %"),
  respiratoryRate: nullableNumber("Breaths per minute"),
  skinTemperatureCelsius: nullableNumber("Skin temperature, °C"),
  skinTemperatureDeviationCelsius: nullableNumber("Skin temperature against the wearer's own baseline, °C"),
  providerScore: nullableNumber("The provider's own recovery or readiness score, on `providerScoreScale`"),
  providerScoreScale: scoreScale
}, { description: "One day's recovery per connection. null: the provider has no source for the value" }) {}

export class BodyMeasurement extends Schema.Class<BodyMeasurement>("BodyMeasurement")({
  ...recordFields,
  date: LocalDate.annotations({
    description: "The local date of the measurement (WHOOP, which gives no time: the UTC day it was read)"
  }),
  measuredAtUtc: Timestamp.annotations({
    description: "When it was measured (WHOOP, which gives no time: when it was read)"
  }),
  weightKilograms: Schema.NullOr(Schema.Number),
  heightMeters: Schema.NullOr(Schema.Number),
  bodyFatPercent: Schema.NullOr(Schema.Number),
  bmi: nullableNumber("As the provider reports it (never worked out here)"),
  leanMassKilograms: nullableNumber("Fat-free (lean) mass, kg")
}, { description: "A body measurement. null: the provider has no source for the value" }) {}

const rangeNotes = "`from`/`to` inclusive (on the record's `date`), at most 366 days; sorted by date, provider, " +
  "connection, then the record's time. Answers carry a weak `ETag` (304 on `If-None-Match` while unchanged), " +
  "are streamed and compressed when large, and page with `limit`/`cursor` and a `Link: <...>; rel=\"next\"` " +
  "header, as the daily reads."

const userPath = Schema.Struct({ userId: UserId })
const recordPath = Schema.Struct({ userId: UserId, connectionId: ConnectionId, id: HealthRecordId })

export class HealthRecordsGroup extends HttpApiGroup.make("healthRecords")
  .add(
    HttpApiEndpoint.get("sleep", "/api/v1/users/:userId/connections/sleep")
      .setPath(userPath)
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(Schema.Array(SleepSession))
      .annotate(OpenApi.Summary, "Sleep sessions and naps over a date range")
      .annotate(OpenApi.Description, rangeNotes)
  )
  .add(
    HttpApiEndpoint.get("sleepById", "/api/v1/users/:userId/connections/:connectionId/sleep/:id")
      .setPath(recordPath)
      .addSuccess(SleepSessionDetail)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "One sleep session, with the provider's JSON")
      .annotate(OpenApi.Description, "404 when the connection or the record is not the user's.")
  )
  .add(
    HttpApiEndpoint.get("workouts", "/api/v1/users/:userId/connections/workouts")
      .setPath(userPath)
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(Schema.Array(Workout))
      .annotate(OpenApi.Summary, "Workouts over a date range")
      .annotate(OpenApi.Description, rangeNotes)
  )
  .add(
    HttpApiEndpoint.get("workoutById", "/api/v1/users/:userId/connections/:connectionId/workouts/:id")
      .setPath(recordPath)
      .addSuccess(WorkoutDetail)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "One workout, with the provider's JSON")
      .annotate(OpenApi.Description, "404 when the connection or the record is not the user's.")
  )
  .add(
    HttpApiEndpoint.get("recovery", "/api/v1/users/:userId/connections/recovery")
      .setPath(userPath)
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(Schema.Array(Recovery))
      .annotate(OpenApi.Summary, "Daily recovery over a date range")
      .annotate(
        OpenApi.Description,
        `${rangeNotes} A WHOOP recovery is served once WHOOP has scored it.`
      )
  )
  .add(
    HttpApiEndpoint.get("body", "/api/v1/users/:userId/connections/body")
      .setPath(userPath)
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(Schema.Array(BodyMeasurement))
      .annotate(OpenApi.Summary, "Body measurements over a date range")
      .annotate(OpenApi.Description, rangeNotes)
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Health records")
  .annotate(OpenApi.Description, "Sleep, workouts, recovery and body measurements, with a user token")
{}
