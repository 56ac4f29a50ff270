/**
 * Handlers of the health records group: the range reads of sleep, workouts, recovery and body measurements, and
 * the single reads of a sleep session and a workout.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest, NotFound } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import type { ConnectionNotFound, UnknownProvider } from "../connections/Errors.js"
import { onlyServices } from "../platform/GroupContext.js"
import type { RecordNotFound } from "./HealthData.js"
import { HealthData } from "./HealthData.js"
import type { BadCursor } from "./RangeResponse.js"

/** A range read's error as the contract words it. */
const rangeErrors = <A, R>(effect: Effect.Effect<A, UnknownProvider | BadCursor, R>) =>
  Effect.mapError(effect, (e) => new BadRequest({ message: e.message }))

/** A single read's errors as the contract words them. */
const recordErrors = <A, R>(effect: Effect.Effect<A, ConnectionNotFound | RecordNotFound, R>) =>
  Effect.mapError(effect, (e) => new NotFound({ message: e.message }))

const healthRecordsGroup = HttpApiBuilder.group(Api, "healthRecords", (handlers) =>
  Effect.gen(function*() {
    const health = yield* HealthData
    return handlers
      .handle("sleep", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.sleepResponse(user.userId, urlParams))))
      .handle("sleepById", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          recordErrors(health.sleepById(user.userId, path.connectionId, path.id))))
      .handle("workouts", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.workoutsResponse(user.userId, urlParams))))
      .handle("workoutById", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          recordErrors(health.workoutById(user.userId, path.connectionId, path.id))))
      .handle("recovery", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.recoveryResponse(user.userId, urlParams))))
      .handle("body", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          rangeErrors(health.bodyResponse(user.userId, urlParams))))
  })).pipe(Layer.provide(UserTokenAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const HealthRecordsHttpLive = onlyServices([SqlClient.SqlClient, HealthData], healthRecordsGroup)
