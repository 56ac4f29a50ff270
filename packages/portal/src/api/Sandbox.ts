/**
 * The sandbox page's group (sandbox mode only; 404 otherwise): test users, simulated connections and the
 * simulators' fault knobs.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AppId, BadRequest, Connection, ContractString, ExternalUserId, NotFound, Provider } from "@pulsebridge/domain"
import { FaultSpecSchema } from "@pulsebridge/sandbox"
import * as Schema from "effect/Schema"
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

export class SandboxGroup extends HttpApiGroup.make("portalSandbox")
  .add(
    HttpApiEndpoint.post("testUser", "/portal/api/sandbox/test-users")
      .setPayload(TestUserPayload)
      .addSuccess(UserDetail, { status: 201 })
      .addError(NotFound)
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
