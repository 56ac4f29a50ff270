/**
 * Meals compared, for a user and a range of journal dates: the meals, drinks and coffees of the range (at most
 * `MealComparisonMaxEntries`), their item names, and their glucose responses as `MealResponses` computes them
 * (one statement for the readings of all the windows), grouped by `MealComparison.ts`. Computed on read, like
 * the responses themselves. The HTTP answer carries a weak ETag that is a digest of the answer: the answer
 * depends on the time now (a response is Pending until its late data may have come), so no version of the
 * stored rows alone could stand for it.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { UserId } from "@pulsebridge/domain"
import {
  MealComparison,
  MealComparisonAboveMgDl,
  MealComparisonMaxEntries,
  MealComparisonMinGroupSize,
  MovingBaselineMgDlPerMin
} from "@pulsebridge/domain"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { noneMatch } from "../healthData/RangeResponse.js"
import { traced } from "../platform/Traced.js"
import { InsightsRepo } from "./InsightsRepo.js"
import { compareMeals, mealKey } from "./MealComparison.js"
import { MealResponses } from "./MealResponses.js"

/** A range holding more meals, drinks and coffees than one comparison considers. */
export class TooManyEntries extends Data.TaggedError("TooManyEntries")<{ readonly from: string; readonly to: string }> {
  override get message() {
    return `${this.from} to ${this.to} holds more than ${MealComparisonMaxEntries} meals, drinks and coffees, the ` +
      "most one comparison considers: narrow the range"
  }
}

export interface ComparisonQuery {
  readonly from: string
  readonly to: string
  readonly minGroupSize?: number | undefined
}

/** Bumped when the bytes of an answer change for the same data, so that older ETags stop matching. */
const representation = "1"

const encode = Schema.encodeSync(MealComparison)

export class MealComparisons extends Effect.Service<MealComparisons>()("@pulsebridge/server/MealComparisons", {
  effect: Effect.gen(function*() {
    const repo = yield* InsightsRepo
    const responses = yield* MealResponses

    /** The comparison of the user's meals of the journal dates `from` to `to`. */
    const range = traced("MealComparisons.range")(function*(userId: UserId, query: ComparisonQuery) {
      const { from, to } = query
      const minGroupSize = query.minGroupSize ?? MealComparisonMinGroupSize.default
      // One more than the cap tells a range over it, without counting the rest.
      const [entries, items] = yield* Effect.all([
        repo.mealsForComparison(userId, from, to, MealComparisonMaxEntries + 1),
        repo.itemNamesByRange(userId, from, to)
      ])
      if (entries.length > MealComparisonMaxEntries) return yield* Effect.fail(new TooManyEntries({ from, to }))
      const namesOf = new Map<string, Array<string>>()
      for (const item of items) {
        const names = namesOf.get(item.entryId)
        if (names === undefined) namesOf.set(item.entryId, [item.name])
        else names.push(item.name)
      }
      const computed = yield* responses.computed(userId, entries)
      const compared = compareMeals(
        entries.map((entry) => ({
          entryId: entry.id,
          entryKind: entry.entryKind,
          title: entry.title,
          consumedAtUtc: entry.consumedAtUtc,
          journalDate: entry.journalDate,
          carbsGrams: entry.carbsGrams,
          key: mealKey({ entryKind: entry.entryKind, title: entry.title, itemNames: namesOf.get(entry.id) ?? [] }),
          response: computed.get(entry.id) ?? null
        })),
        minGroupSize
      )
      return new MealComparison({
        from,
        to,
        minGroupSize,
        unit: "mg/dL",
        aboveMgDl: MealComparisonAboveMgDl,
        movingBaselineMgDlPerMin: MovingBaselineMgDlPerMin,
        ...compared
      }, true)
    })

    /** The REST answer: the comparison's JSON with a weak ETag, or 304 when `If-None-Match` names it. */
    const response = (userId: UserId, query: ComparisonQuery) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const comparison = yield* range(userId, query)
        const body = Buffer.from(JSON.stringify(encode(comparison)), "utf8")
        const etag = `W/"${
          crypto.createHash("sha256").update(representation).update(userId).update(body).digest("base64url").slice(
            0,
            27
          )
        }"`
        const headers = { etag, "cache-control": "private, no-cache" }
        if (noneMatch(request.headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers })
        return HttpServerResponse.uint8Array(body, { contentType: "application/json", headers })
      })

    return { range, response } as const
  }),
  dependencies: [InsightsRepo.Default, MealResponses.Default]
}) {}
