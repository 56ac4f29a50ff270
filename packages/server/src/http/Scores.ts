/**
 * Handlers of the scores group (endpoints 21-22).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { UserTokenAuthLive } from "./Auth.js"
import { notImplemented } from "./NotImplemented.js"

export const ScoresHttpLive = HttpApiBuilder.group(Api, "scores", (handlers) =>
  Effect.succeed(
    handlers
      .handle("daily", () => notImplemented("Daily health scores"))
      .handle("weekly", () => notImplemented("Weekly health scores"))
  )).pipe(Layer.provide(UserTokenAuthLive))
