/**
 * The delivery's circuit breaker, per webhook endpoint: the rule, kept here so the statements that apply it
 * (`EndpointsRepo.markFailed`, `DeliveriesRepo.claimDue`) and the docs say the same.
 *
 * Every failed attempt (no connection, no answer in time, or an answer other than 2xx) adds one to the
 * endpoint's failures in a row; a 2xx sets them back to none. The failure that brings them to
 * `breakerThreshold`, and each failure after it that comes when the endpoint is not paused, pauses the
 * endpoint: 30 s the first time, twice as long each time after, at most an hour. During a pause none of
 * its deliveries is attempted (they stay pending, and a pause takes none of their 8 attempts), and
 * failures of attempts already under way do not lengthen it; other endpoints go on. After a pause the
 * endpoint gets one attempt at a time until one succeeds. Enabling the endpoint or changing its URL
 * starts it afresh.
 */

/** Failed attempts in a row that pause an endpoint. */
export const breakerThreshold = 5

const firstPauseMs = 30_000
const longestPauseMs = 60 * 60_000

/** How long the `nth` pause in a row lasts (1: the first). */
export const breakerPauseMs = (nth: number): number =>
  Math.min(firstPauseMs * 2 ** Math.min(Math.max(nth, 1) - 1, 20), longestPauseMs)

/** The pause rule as the statements take it. */
export const breakerRule = { threshold: breakerThreshold, firstPauseMs, longestPauseMs } as const
