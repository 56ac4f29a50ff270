/**
 * Handlers of the connections group (endpoints 7-15).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { HealthData } from "../healthData/HealthData.js"
import { requireSelf, UserTokenAuthLive } from "../users/UserTokenAuth.js"
import { ConnectFlow } from "./ConnectFlow.js"
import { Connections } from "./Connections.js"

export const ConnectionsHttpLive = HttpApiBuilder.group(Api, "connections", (handlers) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const flow = yield* ConnectFlow
    const health = yield* HealthData
    return handlers
      .handle("createSession", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) => flow.createSession(user, payload)))
      .handle("list", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          connections.listActive(user.userId)))
      .handle("delete", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          flow.disconnect(user.userId, path.connectionId)))
      .handle("activity", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          health.activityRange(user.userId, urlParams)))
      .handle("activityByDate", ({ path }) =>
        Effect.flatMap(
          requireSelf(path.userId),
          (user) =>
            health.activityByDate(user.userId, path.connectionId, path.date)
        ))
      .handle("activityLoad", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          health.loadRange(user.userId, urlParams)))
      .handle("activityLoadByDate", ({ path }) =>
        Effect.flatMap(
          requireSelf(path.userId),
          (user) =>
            health.loadByDate(user.userId, path.connectionId, path.date)
        ))
      .handle("glucose", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          health.glucose(user.userId, urlParams)))
      .handle(
        "providers",
        ({ path }) =>
          Effect.flatMap(requireSelf(path.userId), (user) =>
            connections.listProviders(user.userId))
      )
  })).pipe(Layer.provide(UserTokenAuthLive))
