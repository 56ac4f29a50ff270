/**
 * Handlers of the insights group: the meal responses and the meal comparisons of the token's own user
 * (another user's id is a 403, as on every user route), from `MealResponses` and `MealComparisons`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, BadRequest } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { MealComparisons } from "./MealComparisons.js"
import { MealResponses } from "./MealResponses.js"

export const InsightsHttpLive = HttpApiBuilder.group(Api, "insights", (handlers) =>
  Effect.gen(function*() {
    const responses = yield* MealResponses
    const comparisons = yield* MealComparisons
    return handlers
      .handle("mealResponses", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          responses.range(user.userId, urlParams.from, urlParams.to)))
      .handle("mealComparisons", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          comparisons.response(user.userId, urlParams).pipe(
            Effect.catchTag("TooManyEntries", (e) =>
              Effect.fail(new BadRequest({ message: e.message })))
          )))
  })).pipe(Layer.provide(UserTokenAuthLive))
