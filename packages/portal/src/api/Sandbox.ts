/**
 * The sandbox page's group (sandbox mode only; 404 otherwise): test users (made, listed with their connections'
 * live state, connected to every simulator at once), simulated connections and the simulators' fault knobs.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  AppId,
  BadRequest,
  Connection,
  ContractString,
  ExternalUserId,
  NotFound,
  Provider,
  Timestamp,
  UserId
} from "@pulsebridge/domain"
import { FaultSpecSchema } from "@pulsebridge/sandbox/core/App"
import * as Schema from "effect/Schema"
import { AppPath } from "./Apps.js"
import { PageCursor, PageLimit } from "./Paging.js"
import { PortalAuth } from "./Session.js"
import { UserDetail, UserPath } from "./Users.js"

export class TestUserPayload extends Schema.Class<TestUserPayload>("TestUserPayload")({
  appId: AppId,
  externalUserId: Schema.optional(ExternalUserId)
}) {}

export class SandboxConnectPayload extends Schema.Class<SandboxConnectPayload>("SandboxConnectPayload")({
  provider: Provider,
  account: Schema.optional(
    ContractString({ minLength: 1, maxLength: 64 }, "The simulated account to consent as (default: one per user)")
  )
}) {}

/**
 * A fault knob of a simulator, as its `/_sim/faults` route takes it (`kind`, `count`, `retryAfterSeconds`,
 * `delayMs` with the simulator's own bounds), with a bounded `path` pattern and an HTTP method.
 */
export const FaultSpec = Schema.Struct({
  ...FaultSpecSchema.fields,
  path: ContractString({ minLength: 1, maxLength: 200 }, "Path pattern under the simulator; `*` matches any run"),
  method: Schema.optional(Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE"))
}).annotations({ identifier: "FaultSpec" })

/** A knob as the simulator holds it: with how many more requests it will still hit. */
export const PendingFault = Schema.Struct({ ...FaultSpecSchema.fields, remaining: Schema.Int })

export class SimulatorFaults extends Schema.Class<SimulatorFaults>("SimulatorFaults")({
  provider: Provider,
  faults: Schema.Array(PendingFault)
}) {}

/**
 * A user the sandbox page made for an app (or made again), with each of its open connections as the public API
 * shows them: status, sync state, the backfill's progress, the last error.
 */
export class SandboxTestUser extends Schema.Class<SandboxTestUser>("SandboxTestUser")({
  id: UserId,
  appId: AppId,
  externalUserId: Schema.String,
  status: Schema.String,
  createdAt: Timestamp,
  connections: Schema.Array(Connection)
}) {}

export class SandboxTestUserPage extends Schema.Class<SandboxTestUserPage>("SandboxTestUserPage")({
  data: Schema.Array(SandboxTestUser),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

/** One test user of one app: another app's user, or a user the sandbox page did not make, is a 404. */
export const TestUserPath = Schema.Struct({ appId: AppId, userId: UserId })

/** A simulator that refused to connect the user, and why. */
export class SandboxConnectFailure extends Schema.Class<SandboxConnectFailure>("SandboxConnectFailure")({
  provider: Provider,
  message: Schema.String
}) {}

export class ConnectAllResult extends Schema.Class<ConnectAllResult>("ConnectAllResult")({
  connected: Schema.Array(Provider).annotations({ description: "The providers connected by this call" }),
  failed: Schema.Array(SandboxConnectFailure),
  user: SandboxTestUser.annotations({ description: "The test user after the call, with every open connection" })
}) {}

export class SandboxGroup extends HttpApiGroup.make("portalSandbox")
  .add(
    HttpApiEndpoint.post("testUser", "/portal/api/sandbox/test-users")
      .setPayload(TestUserPayload)
      .addSuccess(UserDetail, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("testUsers", "/portal/api/sandbox/apps/:appId/test-users")
      .setPath(AppPath)
      .setUrlParams(Schema.Struct({ cursor: Schema.optional(PageCursor), limit: Schema.optional(PageLimit) }))
      .addSuccess(SandboxTestUserPage)
      .addError(NotFound)
      .addError(BadRequest)
      .annotate(OpenApi.Description, "The app's test users, newest first, each with its connections' live state")
  )
  .add(
    HttpApiEndpoint.get("getTestUser", "/portal/api/sandbox/apps/:appId/test-users/:userId")
      .setPath(TestUserPath)
      .addSuccess(SandboxTestUser)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("connectAll", "/portal/api/sandbox/apps/:appId/test-users/:userId/connect-all")
      .setPath(TestUserPath)
      .addSuccess(ConnectAllResult)
      .addError(NotFound)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Connects the test user to every simulated provider it has no Active connection with, all at once"
      )
  )
  .add(
    HttpApiEndpoint.post("connect", "/portal/api/sandbox/users/:userId/connections")
      .setPath(UserPath)
      .setPayload(SandboxConnectPayload)
      .addSuccess(Connection, { status: 201 })
      .addError(NotFound)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Runs the hosted connect flow against the provider's simulator, consenting as the simulated account"
      )
  )
  .add(
    HttpApiEndpoint.get("faults", "/portal/api/sandbox/faults").addSuccess(
      Schema.Struct({ data: Schema.Array(SimulatorFaults) })
    ).addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setFaults", "/portal/api/sandbox/faults/:provider")
      .setPath(Schema.Struct({ provider: Provider }))
      .setPayload(Schema.Struct({ faults: Schema.Array(FaultSpec).pipe(Schema.maxItems(20)) }))
      .addSuccess(SimulatorFaults)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
