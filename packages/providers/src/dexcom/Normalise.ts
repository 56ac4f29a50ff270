/**
 * Dexcom's records (API v3: estimated glucose values, events, calibrations, each list in the
 * envelope `{recordType, recordVersion, userId, records}`) as Dexcom writes them, and their pure
 * normalisation into glucose records keyed by `recordId`.
 *
 * Times (`Time.ts`): `systemTime` is UTC; `displayTime` is the device's clock, with an offset
 * (possibly with seconds) from a phone app, none from a receiver, or `Z`. A record's `date` is the
 * date of `displayTime`'s wall clock; its `displayTime` instant is that wall clock at the written
 * offset, or at the offset inferred from `displayTime - systemTime` when none is written.
 *
 * Values: EGVs outside the sensor's range arrive as the sentinels 39 (`status` `low`) and 401
 * (`status` `high`) in mg/dL; they are served as reported, with their status (`Low`, `High`),
 * never clamped or dropped. An event `value` may be a number or a string: a numeric string is read
 * as a number, any other string gives `null` (the text stays in `rawJson`).
 *
 * Fields the canonical records have no place for (`transmitterGenerationVariant`, `displayApp`,
 * `displayDevice`, an event's `recordedSystemTime` and `recordedDisplayTime`, ...) stay in
 * `rawJson`, which is the record exactly as Dexcom sent it.
 *
 * Enumerations: Dexcom writes them in camelCase (`flat`, `fortyFiveUp`, `exercise`, `created`,
 * `fastActing`, `low`); canonical records carry them in PascalCase (`Flat`, `FortyFiveUp`,
 * `Exercise`, `Created`, `FastActing`, `Low`), the form the service contract shows. Units
 * (`mg/dL`, `mg/dL/min`, `grams`, ...) are kept as written; null stays null.
 */
import * as Schema from "effect/Schema"
import type { GlucoseCalibrationRecord, GlucoseEventRecord, GlucoseReadingRecord } from "../Canonical.js"
import { keepUnknownFields } from "../Shared.js"
import { dexcomRecordTimes, isDexcomTime } from "./Time.js"

// ---- provider shapes ----

const optionalString = Schema.optional(Schema.NullOr(Schema.String))

/** A time stamp in any of the forms Dexcom writes (`Time.ts`), kept as text so `rawJson` stays Dexcom's. */
export const DexcomTimeString = Schema.String.pipe(
  Schema.filter(isDexcomTime, { message: () => "expected an ISO 8601 date-time" })
)

/** What every v3 record may name about the device that recorded it (kept in `rawJson`). */
const deviceFields = {
  transmitterId: optionalString,
  transmitterTicks: Schema.optional(Schema.NullOr(Schema.Number)),
  transmitterGeneration: optionalString,
  // e.g. `g715day` (a 15-day G7)
  transmitterGenerationVariant: optionalString,
  // `iOS`, `android`, `receiver`
  displayDevice: optionalString,
  // `G6`, `G7`, `DexcomOne`, `D1G7`, ...
  displayApp: optionalString
}

const egvFields = {
  recordId: Schema.NonEmptyString,
  systemTime: DexcomTimeString,
  displayTime: DexcomTimeString,
  ...deviceFields,
  // null when the sensor gave no reading
  value: Schema.optional(Schema.NullOr(Schema.Number)),
  status: optionalString,
  trend: optionalString,
  trendRate: Schema.optional(Schema.NullOr(Schema.Number)),
  unit: Schema.String,
  rateUnit: Schema.String
}

export const DexcomEgv = Schema.Struct(egvFields).annotations(keepUnknownFields)
export type DexcomEgv = typeof DexcomEgv.Type

/**
 * A record's schema as a page of its list is decoded (`Data.ts`): without copies of the fields it
 * does not name, as the page's reader normalises each record with the record as received (whose
 * JSON is `rawJson`), and with its times as text, read once by the normaliser (a time it cannot
 * read quarantines the record there, naming the field). Keeping unknown fields and reading each
 * time twice cost more than all the rest of a record's decoding.
 */
const ofPage = <
  F extends { readonly systemTime: typeof DexcomTimeString; readonly displayTime: typeof DexcomTimeString }
>(
  fields: F
) => Schema.Struct({ ...fields, systemTime: Schema.String, displayTime: Schema.String })

export const DexcomEgvOfPage = ofPage(egvFields)

const eventFields = {
  recordId: Schema.NonEmptyString,
  systemTime: DexcomTimeString,
  displayTime: DexcomTimeString,
  // when the event was entered, as opposed to when it happened (`systemTime`); not read
  recordedSystemTime: optionalString,
  recordedDisplayTime: optionalString,
  ...deviceFields,
  eventStatus: optionalString,
  eventType: Schema.String,
  eventSubType: optionalString,
  // the schema says string, examples show numbers: both are accepted
  value: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  unit: optionalString
}

export const DexcomEventOfPage = ofPage(eventFields)
export const DexcomEvent = Schema.Struct(eventFields).annotations(keepUnknownFields)
export type DexcomEvent = typeof DexcomEvent.Type

const calibrationFields = {
  recordId: Schema.NonEmptyString,
  systemTime: DexcomTimeString,
  displayTime: DexcomTimeString,
  ...deviceFields,
  value: Schema.Number,
  unit: Schema.String
}

export const DexcomCalibrationOfPage = ofPage(calibrationFields)
export const DexcomCalibration = Schema.Struct(calibrationFields).annotations(keepUnknownFields)
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

/** The few enumeration values Dexcom writes, each converted once: every reading names its trend and status. */
const pascalCased = new Map<string, string>()
const pascalCasedMax = 256

/** `fortyFiveUp` → `FortyFiveUp`; null stays null. */
export const dexcomPascalCase = (value: string | null | undefined): string | null => {
  if (value === null || value === undefined || value === "") return null
  let converted = pascalCased.get(value)
  if (converted === undefined) {
    converted = value.charAt(0).toUpperCase() + value.slice(1)
    if (pascalCased.size < pascalCasedMax) pascalCased.set(value, converted)
  }
  return converted
}

/** An event value, written as a string or a number, as a number; null when it is none. */
export const dexcomEventValue = (value: string | number | null | undefined): number | null => {
  if (value === null || value === undefined) return null
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  const trimmed = value.trim()
  if (trimmed === "") return null
  const n = Number(trimmed)
  return Number.isFinite(n) ? n : null
}

/** The raw record's JSON: the record as Dexcom sent it when known, else the decoded one (which keeps unknown fields). */
const rawJsonOf = (decoded: unknown, raw: unknown): string => JSON.stringify(raw === undefined ? decoded : raw)

export const normaliseDexcomEgv = (egv: DexcomEgv, raw?: unknown): GlucoseReadingRecord => {
  const times = dexcomRecordTimes(egv.systemTime, egv.displayTime)
  return {
    providerRecordId: egv.recordId,
    date: times.date,
    systemTime: times.systemTime,
    displayTime: times.displayTime,
    // the sentinels 39 and 401 are kept as reported; `status` says what they mean
    value: egv.value ?? null,
    trend: dexcomPascalCase(egv.trend),
    trendRate: egv.trendRate ?? null,
    unit: egv.unit,
    rateUnit: egv.rateUnit,
    status: dexcomPascalCase(egv.status),
    transmitterId: egv.transmitterId ?? null,
    rawJson: rawJsonOf(egv, raw)
  }
}

export const normaliseDexcomEvent = (event: DexcomEvent, raw?: unknown): GlucoseEventRecord => {
  const times = dexcomRecordTimes(event.systemTime, event.displayTime)
  return {
    providerRecordId: event.recordId,
    date: times.date,
    systemTime: times.systemTime,
    displayTime: times.displayTime,
    eventStatus: dexcomPascalCase(event.eventStatus),
    eventType: dexcomPascalCase(event.eventType) ?? "Unknown",
    eventSubType: dexcomPascalCase(event.eventSubType),
    value: dexcomEventValue(event.value),
    unit: event.unit ?? null,
    rawJson: rawJsonOf(event, raw)
  }
}

export const normaliseDexcomCalibration = (calibration: DexcomCalibration, raw?: unknown): GlucoseCalibrationRecord => {
  const times = dexcomRecordTimes(calibration.systemTime, calibration.displayTime)
  return {
    providerRecordId: calibration.recordId,
    date: times.date,
    systemTime: times.systemTime,
    displayTime: times.displayTime,
    value: calibration.value,
    unit: calibration.unit,
    rawJson: rawJsonOf(calibration, raw)
  }
}
