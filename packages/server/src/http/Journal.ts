/**
 * Handlers of the journal group (endpoints 16-20).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "./Auth.js"
import { notImplemented } from "./NotImplemented.js"

export const JournalHttpLive = HttpApiBuilder.group(Api, "journal", (handlers) =>
  Effect.succeed(
    handlers
      .handle(
        "create",
        ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("The nutrition journal"))
      )
      .handle("scan", ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("Meal photo analysis")))
      .handle("list", ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("The nutrition journal")))
      .handle("get", ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("The nutrition journal")))
      .handle("image", ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("Meal photos")))
      .handle(
        "update",
        ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("The nutrition journal"))
      )
  )).pipe(Layer.provide(UserTokenAuthLive))
