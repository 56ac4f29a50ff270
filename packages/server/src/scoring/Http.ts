/**
 * Handlers of the scores group (endpoints 21-22): the token's user, from its canonical data.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { ScoreData } from "./ScoreData.js"

export const ScoresHttpLive = HttpApiBuilder.group(Api, "scores", (handlers) =>
  Effect.gen(function*() {
    const scores = yield* ScoreData
    return handlers
      .handle("daily", ({ urlParams }) => Effect.flatMap(CurrentUser, (user) => scores.daily(user.userId, urlParams)))
      .handle("weekly", ({ urlParams }) => Effect.flatMap(CurrentUser, (user) => scores.weekly(user.userId, urlParams)))
  })).pipe(Layer.provide(UserTokenAuthLive))
