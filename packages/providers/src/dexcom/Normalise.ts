/**
 * Dexcom's records (API v3: estimated glucose values, events, calibrations, each list in the
 * envelope `{recordType, recordVersion, userId, records}`) as Dexcom writes them, and their pure
 * normalisation into glucose records keyed by `recordId`.
 *
 * Times: `systemTime` is UTC; `displayTime` is the device's clock, with an offset when the display
 * device is a phone and without one from a receiver. A record's `date` is the date of
 * `displayTime` as written (its first 10 characters: the day the device showed); its
 * `displayTime` instant is the written time at the written offset, or read as UTC when it has none.
 *
 * Enumerations: Dexcom writes them in camelCase (`flat`, `fortyFiveUp`, `exercise`, `created`,
 * `fastActing`, `low`); canonical records carry them in PascalCase (`Flat`, `FortyFiveUp`,
 * `Exercise`, `Created`, `FastActing`, `Low`), the form the service contract shows. Units
 * (`mg/dL`, `mg/dL/min`, `grams`, ...) are kept as written; null stays null.
 */
import * as Schema from "effect/Schema"
import type { GlucoseCalibrationRecord, GlucoseEventRecord, GlucoseReadingRecord } from "../Canonical.js"
import { DateTimeString, keepUnknownFields, parseInstant } from "../Shared.js"

// ---- provider shapes ----

const optionalString = Schema.optional(Schema.NullOr(Schema.String))

export const DexcomEgv = Schema.Struct({
  recordId: Schema.NonEmptyString,
  systemTime: DateTimeString,
  displayTime: DateTimeString,
  transmitterId: optionalString,
  // null when the sensor gave no reading
  value: Schema.optional(Schema.NullOr(Schema.Number)),
  status: optionalString,
  trend: optionalString,
  trendRate: Schema.optional(Schema.NullOr(Schema.Number)),
  unit: Schema.String,
  rateUnit: Schema.String
}).annotations(keepUnknownFields)
export type DexcomEgv = typeof DexcomEgv.Type

export const DexcomEvent = Schema.Struct({
  recordId: Schema.NonEmptyString,
  systemTime: DateTimeString,
  displayTime: DateTimeString,
  eventStatus: optionalString,
  eventType: Schema.String,
  eventSubType: optionalString,
  // the schema says string, examples show numbers: both are accepted
  value: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  unit: optionalString
}).annotations(keepUnknownFields)
export type DexcomEvent = typeof DexcomEvent.Type

export const DexcomCalibration = Schema.Struct({
  recordId: Schema.NonEmptyString,
  systemTime: DateTimeString,
  displayTime: DateTimeString,
  value: Schema.Number,
  unit: Schema.String
}).annotations(keepUnknownFields)
export type DexcomCalibration = typeof DexcomCalibration.Type

/** The v3 envelope of every list endpoint. */
export const DexcomEnvelope = <A, I>(record: Schema.Schema<A, I>) =>
  Schema.Struct({
    recordType: Schema.String,
    recordVersion: Schema.optional(Schema.String),
    userId: Schema.optional(Schema.String),
    records: Schema.Array(record)
  })

// ---- normalisers ----

/** `fortyFiveUp` → `FortyFiveUp`; null stays null. */
export const dexcomPascalCase = (value: string | null | undefined): string | null =>
  value === null || value === undefined || value === "" ? null : value.charAt(0).toUpperCase() + value.slice(1)

/** An event value, written as a string or a number, as a number; null when it is none. */
export const dexcomEventValue = (value: string | number | null | undefined): number | null => {
  if (value === null || value === undefined) return null
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  const trimmed = value.trim()
  if (trimmed === "") return null
  const n = Number(trimmed)
  return Number.isFinite(n) ? n : null
}

/** The day the device showed: the date part of `displayTime` as written. */
const displayDate = (displayTime: string): string => displayTime.slice(0, 10)

const instant = (text: string): Date => new Date(parseInstant(text))

export const normaliseDexcomEgv = (egv: DexcomEgv): GlucoseReadingRecord => ({
  providerRecordId: egv.recordId,
  date: displayDate(egv.displayTime),
  systemTime: instant(egv.systemTime),
  displayTime: instant(egv.displayTime),
  value: egv.value ?? null,
  trend: dexcomPascalCase(egv.trend),
  trendRate: egv.trendRate ?? null,
  unit: egv.unit,
  rateUnit: egv.rateUnit,
  status: dexcomPascalCase(egv.status),
  transmitterId: egv.transmitterId ?? null,
  rawJson: JSON.stringify(egv)
})

export const normaliseDexcomEvent = (event: DexcomEvent): GlucoseEventRecord => ({
  providerRecordId: event.recordId,
  date: displayDate(event.displayTime),
  systemTime: instant(event.systemTime),
  displayTime: instant(event.displayTime),
  eventStatus: dexcomPascalCase(event.eventStatus),
  eventType: dexcomPascalCase(event.eventType) ?? "Unknown",
  eventSubType: dexcomPascalCase(event.eventSubType),
  value: dexcomEventValue(event.value),
  unit: event.unit ?? null,
  rawJson: JSON.stringify(event)
})

export const normaliseDexcomCalibration = (calibration: DexcomCalibration): GlucoseCalibrationRecord => ({
  providerRecordId: calibration.recordId,
  date: displayDate(calibration.displayTime),
  systemTime: instant(calibration.systemTime),
  displayTime: instant(calibration.displayTime),
  value: calibration.value,
  unit: calibration.unit,
  rawJson: JSON.stringify(calibration)
})
