/**
 * Garmin body composition summaries ("bodyComps", Health API 7.4: a weight entered in Garmin Connect,
 * or every field from an Index scale) as Garmin writes them, and their pure normalisation into
 * `BodyMeasurementSnapshot`s.
 *
 * A summary is one measurement: keyed by its `summaryId`, measured at `measurementTimeInSeconds` and
 * dated by the local date of that instant at `measurementTimeOffsetInSeconds`. Weight comes in grams
 * and becomes kilograms; body fat is a percentage and BMI a number, passed on as they are. Garmin's
 * muscle and bone mass (grams) and body water (percent) have no canonical field and stay in the raw
 * JSON: muscle mass is not lean mass (lean mass is everything but fat), so it is not passed off as it.
 * Garmin gives no height.
 */
import * as Schema from "effect/Schema"
import type { BodyMeasurementSnapshot, QuarantinedRecord } from "../Canonical.js"
import { decodeEach, keepUnknownFields, lastByKey } from "../Shared.js"
import { garminLocalDate, garminRawJson, withoutAccessToken } from "./Normalise.js"

const Seconds = Schema.Number.pipe(Schema.int())
const optionalPositive = Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.positive())))
const optionalPercent = Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 100))))

export const GarminBodyComp = Schema.Struct({
  userId: Schema.optional(Schema.String),
  summaryId: Schema.NonEmptyString,
  measurementTimeInSeconds: Seconds,
  measurementTimeOffsetInSeconds: Schema.optional(Seconds),
  weightInGrams: optionalPositive,
  bodyFatInPercent: optionalPercent,
  bodyMassIndex: optionalPositive,
  muscleMassInGrams: optionalPositive,
  boneMassInGrams: optionalPositive,
  bodyWaterInPercent: optionalPercent
}).annotations(keepUnknownFields)
export type GarminBodyComp = typeof GarminBodyComp.Type

export const kilogramsFromGrams = (grams: number): number => grams / 1000

export const normaliseGarminBodyComp = (body: GarminBodyComp, raw: unknown = body): BodyMeasurementSnapshot => ({
  providerRecordId: body.summaryId,
  date: garminLocalDate(body.measurementTimeInSeconds, body.measurementTimeOffsetInSeconds),
  measuredAt: new Date(body.measurementTimeInSeconds * 1000),
  heightMeters: null,
  weightKilograms: body.weightInGrams === null || body.weightInGrams === undefined
    ? null
    : kilogramsFromGrams(body.weightInGrams),
  bodyFatPercent: body.bodyFatInPercent ?? null,
  bmi: body.bodyMassIndex ?? null,
  leanMassKilograms: null,
  maxHeartRate: null,
  rawJson: garminRawJson(raw)
})

/** Garmin's body compositions read one by one (a bad one quarantined), the last copy of each kept. */
export const normaliseGarminBodyComps = (
  items: ReadonlyArray<unknown>
): {
  readonly records: ReadonlyArray<BodyMeasurementSnapshot>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
} => {
  const decoded = decodeEach({
    kind: "BodyMeasurement",
    schema: GarminBodyComp,
    items: items.map(withoutAccessToken),
    normalise: normaliseGarminBodyComp
  })
  return {
    records: lastByKey(decoded.records, (r) => r.providerRecordId),
    quarantined: lastByKey(decoded.quarantined, (q) => q.providerRecordId ?? q.rawJson)
  }
}
