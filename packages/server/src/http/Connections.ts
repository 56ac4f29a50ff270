/**
 * Handlers of the connections group (endpoints 7-15).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConnectFlow } from "../ConnectFlow.js"
import { Connections } from "../Connections.js"
import { requireSelf, UserTokenAuthLive } from "./Auth.js"
import { notImplemented } from "./NotImplemented.js"

export const ConnectionsHttpLive = HttpApiBuilder.group(Api, "connections", (handlers) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const flow = yield* ConnectFlow
    return handlers
      .handle("createSession", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) => flow.createSession(user, payload)))
      .handle("list", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          connections.listActive(user.userId)))
      .handle("delete", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          flow.disconnect(user.userId, path.connectionId)))
      .handle("activity", ({ path }) =>
        Effect.zipRight(requireSelf(path.userId), notImplemented("Daily activity")))
      .handle("activityByDate", ({ path }) =>
        Effect.zipRight(requireSelf(path.userId), notImplemented("Daily activity")))
      .handle("activityLoad", ({ path }) =>
        Effect.zipRight(requireSelf(path.userId), notImplemented("Daily load")))
      .handle(
        "activityLoadByDate",
        ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("Daily load"))
      )
      .handle("glucose", ({ path }) => Effect.zipRight(requireSelf(path.userId), notImplemented("Glucose data")))
      .handle(
        "providers",
        ({ path }) => Effect.flatMap(requireSelf(path.userId), (user) => connections.listProviders(user.userId))
      )
  })).pipe(Layer.provide(UserTokenAuthLive))
