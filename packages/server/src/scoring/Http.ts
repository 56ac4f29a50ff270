/**
 * Handlers of the scores group (endpoints 21-22): the token's user, from its canonical data.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, CurrentUser } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { onlyServices } from "../platform/GroupContext.js"
import { ScoreData } from "./ScoreData.js"

const scoresGroup = HttpApiBuilder.group(Api, "scores", (handlers) =>
  Effect.gen(function*() {
    const scores = yield* ScoreData
    return handlers
      .handle("daily", ({ urlParams }) => Effect.flatMap(CurrentUser, (user) => scores.daily(user.userId, urlParams)))
      .handle("weekly", ({ urlParams }) => Effect.flatMap(CurrentUser, (user) => scores.weekly(user.userId, urlParams)))
  })).pipe(Layer.provide(UserTokenAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const ScoresHttpLive = onlyServices([SqlClient.SqlClient, ScoreData], scoresGroup)
