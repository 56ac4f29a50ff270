/**
 * Handlers of the insights group: the meal responses of the token's own user (another user's id is a
 * 403, as on every user route), from `MealResponses`.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { MealResponses } from "./MealResponses.js"

export const InsightsHttpLive = HttpApiBuilder.group(Api, "insights", (handlers) =>
  Effect.gen(function*() {
    const responses = yield* MealResponses
    return handlers.handle("mealResponses", ({ path, urlParams }) =>
      Effect.flatMap(requireSelf(path.userId), (user) =>
        responses.range(user.userId, urlParams.from, urlParams.to)))
  })).pipe(Layer.provide(UserTokenAuthLive))
