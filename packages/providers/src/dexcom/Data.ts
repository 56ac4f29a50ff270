/**
 * Dexcom data (API v3): estimated glucose values, events and calibrations of a window
 * (`GET /v3/users/self/{egvs,events,calibrations}?startDate&endDate`, ISO 8601 without offset,
 * compared with `systemTime` in UTC, at most 30 days per request), normalised by `Normalise.ts`.
 * A page is read as its envelope, then record by record: a record that does not decode or
 * normalise (an unreadable `displayTime`, a missing `recordId`) is quarantined with its raw JSON
 * and the reason, and the others of the page are stored. Dexcom sends no notifications: it is polled.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ProviderError } from "../Adapter.js"
import type { ProviderData } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { batchOf, checkWindow, dayMs, decodeEach, decodeEachInSlices, lastByKey, utcMidnight } from "../Shared.js"
import {
  DexcomCalibrationOfPage,
  DexcomEgvOfPage,
  DexcomEnvelope,
  DexcomEventOfPage,
  normaliseDexcomCalibration,
  normaliseDexcomEgv,
  normaliseDexcomEvent
} from "./Normalise.js"

// ---- reading ----

const context = (operation: string, input: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Dexcom",
  operation,
  readError: ProviderHttp.oauthErrorReader,
  secrets: ProviderHttp.secretsOf(input)
})

/** Dexcom v3 refuses a wider `startDate`..`endDate`. */
export const dexcomMaxRequestDays = 30

/** `2024-01-31T08:00:00`: UTC without an offset, as Dexcom's date parameters take it. */
export const dexcomDateParam = (ms: number): string => new Date(ms).toISOString().slice(0, 19)

/**
 * The request ranges (ms, start inclusive, end exclusive) covering the local dates of `window`:
 * a day of padding on each side (offsets run from -12 to +14 hours), capped at `now`, cut into
 * ranges of at most 30 days. A 28-day window is one range.
 */
export const dexcomRanges = (
  window: { readonly from: string; readonly to: string },
  now: Date
): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  const start = utcMidnight(window.from) - dayMs
  const end = Math.min(utcMidnight(window.to) + 2 * dayMs, now.getTime())
  const out: Array<{ start: number; end: number }> = []
  for (let s = start; s < end; s += dexcomMaxRequestDays * dayMs) {
    out.push({ start: s, end: Math.min(s + dexcomMaxRequestDays * dayMs, end) })
  }
  return out
}

export const DexcomData: ProviderData = {
  windowDays: 28,
  maxBackfillDays: 365,
  fetchWindow: (input, window) => {
    const ranges = dexcomRanges(window, input.now)
    /** The raw records of one endpoint over the window, one request per range. */
    const all = (what: string, path: string) => {
      const ctx = context(`${what} read`, input)
      // The envelope only: each record is decoded on its own, so one odd record fails nothing else.
      const read = ProviderHttp.readJson(ctx, DexcomEnvelope(Schema.Unknown))
      return Effect.forEach(ranges, (range) =>
        ProviderHttp.send(
          ctx,
          HttpClientRequest.get(
            ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}/v3/users/self/${path}`, [
              ["startDate", dexcomDateParam(range.start)],
              ["endDate", dexcomDateParam(range.end)]
            ])
          ).pipe(HttpClientRequest.bearerToken(input.tokens.accessToken), HttpClientRequest.acceptJson),
          read
        )).pipe(Effect.map((replies) => replies.flatMap((reply) => reply.records)))
    }
    return checkWindow(context("data read", input), window).pipe(
      // The three lists are read at once: a window's reads then take about as long as its largest.
      Effect.zipRight(Effect.all({
        egvs: all("EGV", "egvs"),
        events: all("event", "events"),
        calibrations: all("calibration", "calibrations")
      }, { concurrency: "unbounded" })),
      Effect.flatMap(({ calibrations, egvs, events }) =>
        Effect.map(
          decodeEachInSlices({
            kind: "GlucoseReading",
            schema: DexcomEgvOfPage,
            items: egvs,
            normalise: normaliseDexcomEgv
          }),
          (readings) => {
            const glucoseEvents = decodeEach({
              kind: "GlucoseEvent",
              schema: DexcomEventOfPage,
              items: events,
              normalise: normaliseDexcomEvent
            })
            const glucoseCalibrations = decodeEach({
              kind: "GlucoseCalibration",
              schema: DexcomCalibrationOfPage,
              items: calibrations,
              normalise: normaliseDexcomCalibration
            })
            return batchOf({
              // Ranges do not overlap, but one record id must still give one record.
              glucoseReadings: lastByKey(readings.records, (r) => r.providerRecordId),
              glucoseEvents: lastByKey(glucoseEvents.records, (r) => r.providerRecordId),
              glucoseCalibrations: lastByKey(glucoseCalibrations.records, (r) => r.providerRecordId),
              quarantined: [...readings.quarantined, ...glucoseEvents.quarantined, ...glucoseCalibrations.quarantined]
            })
          }
        )
      )
    )
  },
  notify: () =>
    Effect.fail(
      new ProviderError({
        provider: "Dexcom",
        operation: "notification",
        message: "Dexcom notification: Dexcom sends no notifications"
      })
    )
}
