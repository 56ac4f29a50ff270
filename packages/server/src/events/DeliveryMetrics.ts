/**
 * The webhook delivery counter, by outcome: `delivered`, `failed_attempt` (retried later),
 * `failed` (the last attempt failed; the delivery is given up), `endpoint_disabled` (a failure
 * that disabled its endpoint after 5 days of failures) and `endpoint_paused` (a failure that paused its
 * endpoint, `Breaker.ts`). Counted once an attempt's outcome is recorded.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"

export const deliveries = Metric.counter("pulsebridge_webhook_deliveries_total", {
  description: "Webhook delivery attempts recorded, by outcome",
  incremental: true
})

const count = (outcome: string) => Metric.increment(Metric.tagged(deliveries, "outcome", outcome))

/**
 * Counts a recorded attempt: `retried` when another attempt is planned, `disabled` when it disabled the endpoint,
 * `paused` when it paused it.
 */
export const countDelivery = (
  result: {
    readonly delivered: boolean
    readonly retried: boolean
    readonly disabled: boolean
    readonly paused: boolean
  }
) =>
  Effect.gen(function*() {
    yield* count(result.delivered ? "delivered" : result.retried ? "failed_attempt" : "failed")
    if (result.disabled) yield* count("endpoint_disabled")
    if (result.paused) yield* count("endpoint_paused")
  })
