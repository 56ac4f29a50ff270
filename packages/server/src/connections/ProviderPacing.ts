/**
 * Calls to a provider paced against the budgets its catalogue states per app (`per: "app"`: Withings' 120 requests
 * a minute on the free plan, WHOOP's 100 a minute and 10,000 a day, Dexcom's 60,000 an hour). Such a budget is the
 * operator's registered app's, shared by every user connected through it, so the syncs of many users at once would
 * spend it in seconds and then all wait out the provider's 429s; here each call waits for its turn instead.
 *
 * One set of budgets per provider and client id (the app at the provider), in this process: a budget of `requests`
 * per `windowSeconds` lets that many go at once, then each next one when the oldest of them leaves the window (a
 * sliding window: no stretch of that length ever holds more, however the provider counts). A call reserves its turn
 * in every budget of its provider before it is sent, so calls made at the same moment never take the same turn. Budgets
 * stated per user are the provider's answer to one user's reads and are left to its 429s (the sync waits as long as
 * it asks). Several processes of one deployment each pace to the whole budget; the provider's 429s (waited out, and
 * nothing dropped) cover what they spend together beyond it.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type { RateLimit } from "@pulsebridge/providers"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * One budget's state: the times of its last `requests` turns, oldest first from `head` (a ring). A turn is free
 * when fewer than `requests` turns fall in the `windowMs` before it, so no window of that length ever holds more,
 * wherever the provider starts counting.
 */
interface Budget {
  readonly requests: number
  readonly windowMs: number
  readonly turns: Array<number>
  head: number
}

const budgetOf = (limit: RateLimit): Budget => ({
  requests: limit.requests,
  windowMs: limit.windowSeconds * 1000,
  turns: [],
  head: 0
})

/** The earliest turn `budget` leaves free at or after `nowMs`. */
const freeFrom = (budget: Budget, nowMs: number): number =>
  budget.turns.length < budget.requests ? nowMs : Math.max(nowMs, budget.turns[budget.head]! + budget.windowMs)

const take = (budget: Budget, atMs: number): void => {
  if (budget.turns.length < budget.requests) {
    budget.turns.push(atMs)
  } else {
    budget.turns[budget.head] = atMs
    budget.head = (budget.head + 1) % budget.requests
  }
}

export class ProviderPacing extends Effect.Service<ProviderPacing>()("@pulsebridge/server/ProviderPacing", {
  effect: Effect.gen(function*() {
    const registry = yield* ProviderRegistry
    const budgets = new Map<string, ReadonlyArray<Budget>>()

    const budgetsOf = (provider: string, clientId: string): ReadonlyArray<Budget> => {
      const key = `${provider}\u0000${clientId}`
      let found = budgets.get(key)
      if (found === undefined) {
        const limits = Option.match(registry.find(provider), {
          onNone: () => [],
          onSome: (plugin) => plugin.catalog.limits.rateLimits.filter((limit) => limit.per === "app")
        })
        found = limits.filter((limit) => limit.requests >= 1 && limit.windowSeconds > 0).map(budgetOf)
        budgets.set(key, found)
      }
      return found
    }

    /**
     * Waits for the next turn of the app's budgets at the provider (at once when it has none). The turn is reserved
     * in all of them before the wait, synchronously, so concurrent calls get successive turns.
     */
    const turn = (provider: string, clientId: string) =>
      Effect.gen(function*() {
        const found = budgetsOf(provider, clientId)
        if (found.length === 0) return
        const now = yield* Clock.currentTimeMillis
        const at = Math.max(...found.map((budget) => freeFrom(budget, now)))
        for (const budget of found) take(budget, at)
        if (at > now) yield* Effect.sleep(at - now)
      })

    return {
      turn,
      /** `client` with every request waiting for its turn in the budgets of `clientId` at `provider`. */
      paced: (provider: string, clientId: string, client: HttpClient.HttpClient): HttpClient.HttpClient =>
        budgetsOf(provider, clientId).length === 0
          ? client
          : HttpClient.mapRequestEffect(client, (request) => Effect.as(turn(provider, clientId), request))
    } as const
  })
}) {}
