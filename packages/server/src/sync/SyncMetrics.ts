/**
 * The sync's counters, by provider (its slug): windows read from providers, records stored and
 * quarantined, and failed provider calls by kind. Counted where the sync engine reads and stores,
 * so a retried read counts each failed attempt and a stored window its records once.
 */
import type { CanonicalBatch, ProviderError } from "@pulsebridge/providers"
import { isAccessLost } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"

export const windowsFetched = Metric.counter("pulsebridge_sync_windows_fetched_total", {
  description: "Date windows read from a provider by the sync, by provider",
  incremental: true
})

export const recordsStored = Metric.counter("pulsebridge_sync_records_stored_total", {
  description: "Canonical records stored by the sync (new or updated), by provider",
  incremental: true
})

export const recordsQuarantined = Metric.counter("pulsebridge_sync_records_quarantined_total", {
  description: "Provider records the sync could not read and put in quarantine, by provider",
  incremental: true
})

export const providerErrors = Metric.counter("pulsebridge_sync_provider_errors_total", {
  description: "Failed provider calls of the sync (each attempt), by provider and kind",
  incremental: true
})

/** What kind of failure a provider call ended in, as a bounded label. */
export const errorKind = (error: ProviderError): string =>
  error.status === 429
    ? "rate_limited"
    : isAccessLost(error)
    ? "access_lost"
    : error.status === 401
    ? "unauthorized"
    : error.status !== undefined && error.status >= 500
    ? "server_error"
    : "other"

/** One window read from `provider`. */
export const countWindow = (provider: string) => Metric.increment(Metric.tagged(windowsFetched, "provider", provider))

/** A batch stored for `provider`: its records, and those it quarantined. */
export const countStored = (provider: string, batch: CanonicalBatch) =>
  Effect.gen(function*() {
    let records = 0
    for (const [key, list] of Object.entries(batch)) {
      if (key !== "quarantined" && Array.isArray(list)) records += list.length
    }
    if (records > 0) yield* Metric.incrementBy(Metric.tagged(recordsStored, "provider", provider), records)
    if (batch.quarantined.length > 0) {
      yield* Metric.incrementBy(Metric.tagged(recordsQuarantined, "provider", provider), batch.quarantined.length)
    }
  })

/** One failed call to `provider`. */
export const countProviderError = (provider: string, error: ProviderError) =>
  Metric.increment(
    Metric.taggedWithLabels(providerErrors, [
      MetricLabel.make("provider", provider),
      MetricLabel.make("kind", errorKind(error))
    ])
  )
