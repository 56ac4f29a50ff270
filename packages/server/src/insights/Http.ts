/**
 * Handlers of the insights group: the meal responses and the meal comparisons of the token's own user
 * (another user's id is a 403, as on every user route), from `MealResponses` and `MealComparisons`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { onlyServices } from "../platform/GroupContext.js"
import { MealComparisons } from "./MealComparisons.js"
import { MealResponses } from "./MealResponses.js"

const insightsGroup = HttpApiBuilder.group(Api, "insights", (handlers) =>
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

/** The group built on only the services it takes (`GroupContext.ts`). */
export const InsightsHttpLive = onlyServices([SqlClient.SqlClient, MealResponses, MealComparisons], insightsGroup)
