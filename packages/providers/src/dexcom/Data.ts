/**
 * Dexcom data (API v3): estimated glucose values, events and calibrations of a window
 * (`GET /v3/users/self/{egvs,events,calibrations}?startDate&endDate`, ISO 8601 without offset,
 * compared with `systemTime` in UTC, at most 30 days per request), normalised by `Normalise.ts`.
 * Dexcom sends no notifications: it is polled.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import { ProviderError } from "../Adapter.js"
import type { ProviderData } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { batchOf, checkWindow, dayMs, lastByKey, utcMidnight } from "../Shared.js"
import {
  DexcomCalibration,
  DexcomEgv,
  DexcomEnvelope,
  DexcomEvent,
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
    /** Every record of one endpoint over the window, one request per range. */
    const all = <A, I>(what: string, path: string, record: Schema.Schema<A, I>) => {
      const ctx = context(`${what} read`, input)
      const read = ProviderHttp.readJson(ctx, DexcomEnvelope(record))
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
      Effect.zipRight(Effect.all({
        egvs: all("EGV", "egvs", DexcomEgv),
        events: all("event", "events", DexcomEvent),
        calibrations: all("calibration", "calibrations", DexcomCalibration)
      })),
      Effect.map(({ calibrations, egvs, events }) =>
        batchOf({
          // Ranges do not overlap, but one record id must still give one record.
          glucoseReadings: lastByKey(egvs.map(normaliseDexcomEgv), (r) => r.providerRecordId),
          glucoseEvents: lastByKey(events.map(normaliseDexcomEvent), (r) => r.providerRecordId),
          glucoseCalibrations: lastByKey(calibrations.map(normaliseDexcomCalibration), (r) => r.providerRecordId)
        })
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
