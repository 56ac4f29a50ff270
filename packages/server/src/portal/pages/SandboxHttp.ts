/**
 * Handlers of the portal's sandbox group: one `PortalSandbox` method each, audited. Outside
 * sandbox mode every route is a 404 `NotFound`, as if it did not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, BadRequest, NotFound } from "@pulsebridge/domain"
import { ConnectAllResult, SandboxGroup, UserDetail } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import { Audit, portalActor } from "../operators/Audit.js"
import { PortalSandbox } from "./Sandbox.js"

const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))
const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))

export const PortalSandboxHttpLive = HttpApiBuilder.group(
  Api.add(SandboxGroup),
  "portalSandbox",
  (handlers) =>
    Effect.gen(function*() {
      const sandbox = yield* PortalSandbox
      const audit = yield* Audit
      return handlers
        .handle("testUser", ({ payload }) =>
          Effect.gen(function*() {
            const actor = yield* portalActor
            const { user } = yield* sandbox.testUser(payload.appId, payload.externalUserId, (made) =>
              audit.record({
                ...actor,
                action: "sandbox.testUser",
                targetType: "user",
                targetId: made.user.id,
                appId: made.user.appId,
                detail: { externalUserId: made.user.externalUserId, created: made.created }
              }))
            return new UserDetail({ user, connections: [] })
          }).pipe(Effect.catchTags({ SandboxOff: notFound, PortalAppNotFound: notFound })))
        .handle("testUsers", ({ path, urlParams }) =>
          sandbox.testUsers(path.appId, urlParams).pipe(
            Effect.catchTags({ SandboxOff: notFound, PortalAppNotFound: notFound, CursorInvalid: badRequest })
          ))
        .handle("getTestUser", ({ path }) =>
          sandbox.testUserOf(path.appId, path.userId).pipe(
            Effect.catchTags({ SandboxOff: notFound, TestUserNotFound: notFound })
          ))
        .handle("connectAll", ({ path }) =>
          Effect.gen(function*() {
            const actor = yield* portalActor
            const result = yield* sandbox.connectAll(path.appId, path.userId, (connection) =>
              audit.record({
                ...actor,
                action: "sandbox.connect",
                targetType: "connection",
                targetId: connection.id,
                appId: path.appId,
                detail: { userId: connection.userId, provider: connection.provider }
              }))
            return new ConnectAllResult(result)
          }).pipe(
            Effect.catchTags({ SandboxOff: notFound, TestUserNotFound: notFound, SandboxRefused: badRequest })
          ))
        .handle("connect", ({ path, payload }) =>
          Effect.gen(function*() {
            const { connection, user } = yield* sandbox.connect(path.userId, payload.provider, payload.account)
            yield* audit.record({
              ...(yield* portalActor),
              action: "sandbox.connect",
              targetType: "connection",
              targetId: connection.id,
              appId: user.appId,
              detail: { userId: user.id, provider: connection.provider }
            })
            return connection
          }).pipe(
            Effect.catchTags({
              SandboxOff: notFound,
              SimulatorMissing: notFound,
              UserNotFound: notFound,
              SandboxRefused: badRequest
            })
          ))
        .handle("faults", () =>
          sandbox.faults().pipe(
            Effect.map((data) => ({ data })),
            Effect.catchTags({ SandboxOff: notFound, SandboxRefused: Effect.die })
          ))
        .handle("setFaults", ({ path, payload }) =>
          Effect.gen(function*() {
            const faults = yield* sandbox.setFaults(path.provider, payload.faults)
            yield* audit.record({
              ...(yield* portalActor),
              action: "sandbox.faults.set",
              targetType: "simulator",
              targetId: path.provider,
              detail: { faults: payload.faults }
            })
            return faults
          }).pipe(Effect.catchTags({ SandboxOff: notFound, SimulatorMissing: notFound, SandboxRefused: badRequest })))
    })
)
