/**
 * Handlers of the connections group (endpoints 7-15).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest, Conflict, NotFound, ProviderUnavailable } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import type { DayNotFound, NoDailyActivity } from "../healthData/HealthData.js"
import { HealthData } from "../healthData/HealthData.js"
import type { BadCursor } from "../healthData/RangeResponse.js"
import { onlyServices } from "../platform/GroupContext.js"
import { Resync } from "../sync/Resync.js"
import { ConnectFlow } from "./ConnectFlow.js"
import { Connections } from "./Connections.js"
import type {
  AuthorizationUnavailable,
  ConnectionNotFound,
  ProviderNotConfigured,
  RedirectUrlRefused,
  UnknownProvider
} from "./Errors.js"

/** A range read's error as the contract words it. */
const rangeErrors = <A, R>(effect: Effect.Effect<A, UnknownProvider | BadCursor, R>) =>
  Effect.mapError(effect, (e) => new BadRequest({ message: e.message }))

/** A connect session's errors as the contract words them. */
const sessionErrors = <A, R>(
  effect: Effect.Effect<A, UnknownProvider | ProviderNotConfigured | RedirectUrlRefused | AuthorizationUnavailable, R>
) =>
  Effect.mapError(effect, (e) =>
    e._tag === "AuthorizationUnavailable"
      ? new ProviderUnavailable({ message: e.message })
      : new BadRequest({ message: e.message }))

/** A single read's (or a disconnect's) errors as the contract words them. */
const dayErrors = <A, R>(effect: Effect.Effect<A, ConnectionNotFound | NoDailyActivity | DayNotFound, R>) =>
  Effect.mapError(effect, (e) => new NotFound({ message: e.message }))

const connectionsGroup = HttpApiBuilder.group(Api, "connections", (handlers) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const flow = yield* ConnectFlow
    const health = yield* HealthData
    const resync = yield* Resync
    return handlers
      .handle("createSession", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          sessionErrors(flow.createSession(user, payload))))
      .handle("list", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          connections.listActive(user.userId)))
      .handle("delete", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          dayErrors(flow.disconnect(user.userId, path.connectionId))))
      .handle("resync", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          resync.request(user, path.connectionId, payload).pipe(
            Effect.catchTags({
              ConnectionNotFound: (e) =>
                Effect.fail(new NotFound({ message: e.message })),
              ConnectionNotActive: (e) =>
                Effect.fail(new Conflict({ message: e.message })),
              RangeRefused: (e) =>
                Effect.fail(new BadRequest({ message: e.message }))
            })
          )))
      .handle("activity", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.activityResponse(user.userId, urlParams))))
      .handle("activityByDate", ({ path }) =>
        Effect.flatMap(
          requireSelf(path.userId),
          (user) =>
            dayErrors(health.activityByDate(user.userId, path.connectionId, path.date))
        ))
      .handle("activityLoad", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.loadResponse(user.userId, urlParams))))
      .handle("activityLoadByDate", ({ path }) =>
        Effect.flatMap(
          requireSelf(path.userId),
          (user) =>
            dayErrors(health.loadByDate(user.userId, path.connectionId, path.date))
        ))
      .handle("glucose", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.glucose(user.userId, urlParams))))
      .handle(
        "providers",
        ({ path }) =>
          Effect.flatMap(requireSelf(path.userId), (user) =>
            connections.listProviders(user.appId, user.userId))
      )
  })).pipe(Layer.provide(UserTokenAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const ConnectionsHttpLive = onlyServices(
  [ConnectFlow, SqlClient.SqlClient, Connections, Resync, HealthData],
  connectionsGroup
)
