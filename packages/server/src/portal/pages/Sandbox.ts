/**
 * The portal's sandbox page (sandbox mode only): test users (made, marked as such, listed per app with their
 * connections' live state), a simulated provider connected in one call, or every one at once, and the simulators'
 * fault knobs.
 *
 * Connecting runs the real hosted connect flow, only without a browser: a connect session as
 * `POST .../connections/sessions` makes it (an app without credentials of its own uses the sandbox
 * credentials, as for every newcomer), the consent is posted to the provider's simulator on this
 * server as the consent page's form would post it, and the simulator's redirect is handed to the
 * flow's own callback. The connection is therefore a real one, whose backfill starts at once.
 * The fault knobs go through each simulator's own control routes (`/_sim/faults`).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, Connection, User, UserId } from "@pulsebridge/domain"
import { CreateConnectSessionPayload, CreateUserPayload, Provider } from "@pulsebridge/domain"
import type { FaultSpec } from "@pulsebridge/portal/api"
import {
  PendingFault,
  SandboxConnectFailure,
  SandboxTestUser,
  SandboxTestUserPage,
  SimulatorFaults
} from "@pulsebridge/portal/api"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { Apps } from "../../apps/Apps.js"
import { ConnectFlow } from "../../connections/ConnectFlow.js"
import { Connections } from "../../connections/Connections.js"
import { ProviderAccess } from "../../connections/ProviderAccess.js"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import { traced } from "../../platform/Traced.js"
import { SandboxSimulators } from "../../sandbox/SandboxRoutes.js"
import { SyncQueue } from "../../sync/SyncQueue.js"
import { Users } from "../../users/Users.js"
import { SandboxTestUsersRepo } from "./SandboxTestUsersRepo.js"
import { defaultPageSize, UserDirectoryRepo } from "./UserDirectoryRepo.js"
import { PortalAppNotFound, UserPages } from "./UserPages.js"

/** The server does not run in sandbox mode. */
export class SandboxOff extends Data.TaggedError("SandboxOff")<{}> {
  override get message() {
    return "the sandbox page exists only in sandbox mode (SANDBOX=true)"
  }
}

/** No simulator of this provider is mounted. */
export class SimulatorMissing extends Data.TaggedError("SimulatorMissing")<{ readonly provider: string }> {
  override get message() {
    return `no ${this.provider} simulator runs on this server`
  }
}

/** The connect flow or a simulator refused; `reason` says where and why. */
export class SandboxRefused extends Data.TaggedError("SandboxRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** The user is not a test user of this app (another app's, one the sandbox page did not make, or none). */
export class TestUserNotFound extends Data.TaggedError("TestUserNotFound")<{ readonly userId: string }> {
  override get message() {
    return `no test user with id ${this.userId} in this app`
  }
}

const FaultsBody = Schema.Struct({ faults: Schema.Array(PendingFault) })

export class PortalSandbox extends Effect.Service<PortalSandbox>()("@pulsebridge/server/PortalSandbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* ServerConfig
    const apps = yield* Apps
    const users = yield* Users
    const pages = yield* UserPages
    const flow = yield* ConnectFlow
    const connections = yield* Connections
    const access = yield* ProviderAccess
    const bases = yield* ServerBases
    const registry = yield* ProviderRegistry
    const simulators = yield* SandboxSimulators
    const syncQueue = yield* SyncQueue
    const client = yield* HttpClient.HttpClient
    const testUsers = yield* SandboxTestUsersRepo
    const directory = yield* UserDirectoryRepo

    const requireSandbox = config.sandbox ? Effect.void : Effect.fail(new SandboxOff())

    /** The providers whose simulator sandbox mode mounts (see `SandboxRoutes`). */
    const simulated = registry.plugins
      .map((plugin) => plugin.catalog.name)
      .filter((name): name is Provider =>
        Schema.is(Provider)(name) && simulators.some((entry) => entry.provider === name)
      )

    const requireSimulator = (provider: Provider) =>
      simulated.includes(provider) ? Effect.void : Effect.fail(new SimulatorMissing({ provider }))

    const refused = (reason: string) => new SandboxRefused({ reason })

    /**
     * A request to this server itself, at its internal address (no redirects followed). Behind a TLS
     * proxy (`TRUST_PROXY`) the server serves only requests the proxy marks as https; this one is.
     */
    const internal = (request: HttpClientRequest.HttpClientRequest) =>
      client.execute(HttpClientRequest.setHeader(request, "x-forwarded-proto", "https")).pipe(
        Effect.scoped,
        Effect.mapError((e) => refused(`the sandbox did not answer: ${e.message}`))
      )

    const controlUrl = (provider: Provider) => `${bases.internalBase}${access.sandboxPath(provider)}/_sim/faults`

    const readFaults = (provider: Provider) =>
      Effect.gen(function*() {
        const response = yield* client.get(controlUrl(provider), { headers: { "x-forwarded-proto": "https" } }).pipe(
          Effect.flatMap(HttpClientResponse.schemaBodyJson(FaultsBody)),
          Effect.scoped,
          Effect.mapError((e) => refused(`the ${provider} simulator's faults could not be read: ${e.message}`))
        )
        return new SimulatorFaults({ provider, faults: response.faults })
      })

    /** Posts the consent form to the simulator and answers its redirect with the flow's own callback. */
    const consent = (authorizationUrl: string, account: string) =>
      Effect.gen(function*() {
        const url = new URL(authorizationUrl)
        if (`${url.origin}${url.pathname}`.startsWith(`${bases.publicBase}/sandbox/`) === false) {
          return yield* refused("the app's own credentials send this provider's consent elsewhere than the sandbox")
        }
        const decided = yield* internal(
          HttpClientRequest.post(`${bases.internalBase}${url.pathname}${url.search}`).pipe(
            HttpClientRequest.bodyUrlParams({ decision: "approve", user: account })
          )
        )
        const location = decided.headers["location"]
        if (decided.status !== 302 || location === undefined) {
          return yield* refused(`the simulator refused the consent (HTTP ${decided.status})`)
        }
        const callback = new URL(location)
        const params = Object.fromEntries(callback.searchParams)
        const outcome = callback.pathname.endsWith("/callback/oauth1")
          ? yield* flow.callbackOAuth1(params)
          : yield* flow.callbackOAuth2(params)
        if (outcome._tag === "NoSession") return yield* refused(outcome.message)
        const result = new URL(outcome.location).searchParams
        const connectionId = result.get("connectionId")
        if (result.get("success") !== "true" || connectionId === null) {
          return yield* refused(`the connect flow failed: ${result.get("error") ?? "unknown error"}`)
        }
        return connectionId
      })

    const requireApp = (appId: AppId) =>
      Effect.flatMap(
        apps.get(appId),
        Option.match({ onNone: () => Effect.fail(new PortalAppNotFound({ appId })), onSome: () => Effect.void })
      )

    /** The test user of this app, or `TestUserNotFound`. */
    const requireTestUser = (appId: AppId, userId: UserId) =>
      Effect.gen(function*() {
        if (!(yield* testUsers.isTestUserOf(appId, userId))) return yield* new TestUserNotFound({ userId })
        return yield* pages.requireUser(userId).pipe(
          Effect.catchTag("UserNotFound", () => Effect.fail(new TestUserNotFound({ userId })))
        )
      })

    const testUserOf = (user: User, open: ReadonlyArray<Connection>) =>
      new SandboxTestUser({
        id: user.id,
        appId: user.appId,
        externalUserId: user.externalUserId,
        status: user.status,
        createdAt: user.createdAt,
        connections: open
      })

    /** Connects the user to the provider's simulator; the user was found and is Active. */
    const connectUser = (user: User, provider: Provider, account: string | undefined) =>
      Effect.gen(function*() {
        const session = yield* flow.createSession(
          { appId: user.appId, userId: user.id },
          new CreateConnectSessionPayload({ provider, redirectUrl: `${bases.publicBase}/portal/sandbox/connected` })
        ).pipe(Effect.mapError((e) => refused(e.message)))
        const connectionId = yield* consent(session.authorizationUrl, account ?? `portal-${user.id.slice(0, 8)}`)
        const connection = (yield* connections.listOpen(user.id as UserId)).find((c) => c.id === connectionId)
        if (connection === undefined) return yield* refused("the connection was made but is no longer open")
        return connection
      })

    const requireActive = (user: User) =>
      user.status === "Active"
        ? Effect.void
        : Effect.fail(refused("the user is Inactive; only an Active user can connect"))

    return {
      /** A page of the app's test users, newest first, each with its open connections as they are now. */
      testUsers: traced("PortalSandbox.testUsers")(function*(
        appId: AppId,
        query: { readonly cursor?: string | undefined; readonly limit?: number | undefined }
      ) {
        yield* requireSandbox
        yield* requireApp(appId)
        const page = yield* directory.page({
          appId,
          cursor: query.cursor,
          limit: query.limit ?? defaultPageSize,
          testUsersOnly: true
        })
        const open = yield* connections.listOpenOfUsers(page.data.map((row) => row.id))
        return new SandboxTestUserPage({
          data: page.data.map((row) =>
            new SandboxTestUser({
              id: row.id,
              appId,
              externalUserId: row.externalUserId,
              status: row.status,
              createdAt: row.createdAt,
              connections: open.get(row.id) ?? []
            })
          ),
          nextCursor: page.nextCursor
        })
      }),

      /** One test user of the app with its open connections as they are now. */
      testUserOf: traced("PortalSandbox.testUserOf")(function*(appId: AppId, userId: UserId) {
        yield* requireSandbox
        const user = yield* requireTestUser(appId, userId)
        return testUserOf(user, yield* connections.listOpen(user.id))
      }),

      /**
       * Connects the test user to every simulated provider it has no Active connection with, all at once (each as
       * `connect` does, and `record`ed); a simulator that refuses is reported and the others still connect.
       */
      connectAll: traced("PortalSandbox.connectAll")(function*<E, R>(
        appId: AppId,
        userId: UserId,
        record: (connection: Connection) => Effect.Effect<void, E, R>
      ) {
        yield* requireSandbox
        const user = yield* requireTestUser(appId, userId)
        yield* requireActive(user)
        const active = new Set(
          (yield* connections.listOpen(user.id)).filter((c) => c.status === "Active").map((c) => c.provider)
        )
        // At once: each connect waits on its simulator's token exchange and identity read, and one after the other
        // they could outlast the request's deadline.
        const outcomes = yield* Effect.forEach(
          simulated.filter((p) => !active.has(p)),
          (provider) =>
            connectUser(user, provider, undefined).pipe(
              Effect.either,
              Effect.tap((outcome) => outcome._tag === "Right" ? record(outcome.right) : Effect.void),
              Effect.map((outcome) => ({ provider, outcome }))
            ),
          { concurrency: "unbounded" }
        )
        const connected: Array<Provider> = []
        const failed: Array<SandboxConnectFailure> = []
        for (const { outcome, provider } of outcomes) {
          if (outcome._tag === "Right") connected.push(provider)
          else failed.push(new SandboxConnectFailure({ provider, message: outcome.left.message }))
        }
        return { connected, failed, user: testUserOf(user, yield* connections.listOpen(user.id)) }
      }),

      /** A user of the app (`sandbox-<random>` unless named), made as `POST /api/v1/users` makes it. */
      testUser: traced("PortalSandbox.testUser")(function*<E, R>(
        appId: AppId,
        externalUserId: string | undefined,
        record: (made: { readonly user: User; readonly created: boolean }) => Effect.Effect<void, E, R>
      ) {
        yield* requireSandbox
        if (Option.isNone(yield* apps.get(appId))) return yield* new PortalAppNotFound({ appId })
        // The user and its audit event (`record`) commit together.
        const { created, stoppedSyncs, user } = yield* users.create(
          appId,
          new CreateUserPayload({
            externalUserId: externalUserId ?? `sandbox-${crypto.randomBytes(4).toString("hex")}`
          })
        ).pipe(
          Effect.tap((made) => testUsers.mark(made.user.appId, made.user.id)),
          Effect.tap(record),
          sql.withTransaction,
          Effect.catchTag("SqlError", Effect.die)
        )
        // A reactivated user's connections sync now, as after `POST /api/v1/users`.
        if (stoppedSyncs) yield* syncQueue.resumeUser(user.id)
        return { user, created }
      }),

      /** Connects the user to the provider's simulator, consenting as `account` (default: one per user). */
      connect: traced("PortalSandbox.connect")(
        function*(userId: string, provider: Provider, account: string | undefined) {
          yield* requireSandbox
          yield* requireSimulator(provider)
          const user = yield* pages.requireUser(userId)
          yield* requireActive(user)
          const connection = yield* connectUser(user, provider, account)
          return { user, connection }
        }
      ),

      /** Every simulator's pending fault knobs. */
      faults: traced("PortalSandbox.faults")(function*() {
        yield* requireSandbox
        return yield* Effect.forEach(simulated, readFaults)
      }),

      /** Replaces the simulator's fault knobs with `faults` (none clears them). */
      setFaults: traced("PortalSandbox.setFaults")(
        function*(provider: Provider, faults: ReadonlyArray<typeof FaultSpec.Type>) {
          yield* requireSandbox
          yield* requireSimulator(provider)
          const cleared = yield* internal(HttpClientRequest.del(controlUrl(provider)))
          if (cleared.status >= 300) return yield* refused(`the ${provider} simulator refused (HTTP ${cleared.status})`)
          if (faults.length > 0) {
            const set = yield* internal(
              HttpClientRequest.post(controlUrl(provider)).pipe(
                HttpClientRequest.bodyUnsafeJson(faults)
              )
            )
            if (set.status >= 300) {
              return yield* refused(`the ${provider} simulator refused the faults (HTTP ${set.status})`)
            }
          }
          return yield* readFaults(provider)
        }
      )
    } as const
  }),
  dependencies: [SandboxTestUsersRepo.Default, UserDirectoryRepo.Default]
}) {}
