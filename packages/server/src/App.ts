/**
 * The one composition root: every feature's services, the sync and analysis runtimes, the HTTP
 * application and the listener, wired once. `serve` (Main.ts), the end-to-end test harness and the
 * operator CLI all use these layers as they are; each leaves open only what its caller decides:
 * the configuration (`ServerConfig`), a migrated database (`SqlClient`) and the provider plug-ins
 * (`ProviderRegistry`: `ProviderRegistry.Default` holds the built-in ones).
 *
 * Naming: a service is an `Effect.Service` whose `Default` layer carries its dependencies; any
 * other layer is named `<What>Live`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
// From its own module rather than the package's index, so that the page's bundled script (3 MB) is loaded only
// with the application, not by every CLI command that shares a compiled chunk with it.
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { RateLimiter } from "./access/RateLimit.js"
import { UserTokenCheck } from "./access/UserTokenAuth.js"
import { ConnectFlow } from "./connections/ConnectFlow.js"
import { ConnectionTokens } from "./connections/ConnectionTokens.js"
import { ConnectionsHttpLive } from "./connections/Http.js"
import { OAuthHttpLive } from "./connections/OAuthHttp.js"
import { ProviderAccess } from "./connections/ProviderAccess.js"
import { TokenExchange, TokenExchangeLive } from "./connections/TokenExchange.js"
import { CoverageHttpLive } from "./coverage/Http.js"
import { DataLive } from "./Data.js"
import { Delivery, DeliveryWorkerLive } from "./events/Delivery.js"
import { Endpoints } from "./events/Endpoints.js"
import { WebhookEndpointsHttpLive } from "./events/Http.js"
import { HealthRecordsHttpLive } from "./healthData/Http.js"
import { makeAppMiddleware } from "./http/Middleware.js"
import { hstsHeader } from "./http/ResponseHeaders.js"
import { RootRoutesLive } from "./http/RootRoutes.js"
import { InsightsHttpLive } from "./insights/Http.js"
import { BlobStore } from "./journal/BlobStore.js"
import { JournalHttpLive } from "./journal/Http.js"
import { Journal } from "./journal/Journal.js"
import { AnalysisQueueLive, MealAnalysisLive, ResumePendingLive } from "./journal/MealAnalysis.js"
import { MealAnalyzerLive } from "./journal/MealAnalyzer.js"
import { NutrientResolver } from "./journal/NutrientResolver.js"
import { McpRoutesLive } from "./mcp/Http.js"
import { McpAccessHttpLive } from "./mcp/oauth/ApiHttp.js"
import { McpAuthorization } from "./mcp/oauth/Authorization.js"
import { McpClients } from "./mcp/oauth/Clients.js"
import { OAuthRoutesLive } from "./mcp/oauth/Http.js"
import { SandboxSignIn } from "./mcp/oauth/SandboxSignIn.js"
import { McpTools } from "./mcp/Tools.js"
import { MetricsListenerLive, MetricsRoutesLive } from "./observability/MetricsRoutes.js"
import { ShardingLive } from "./platform/Cluster.js"
import { EmbeddedMaintenanceLive } from "./platform/EmbeddedMaintenance.js"
import { HttpServerLive, ProviderHttpClientLive } from "./platform/HttpServer.js"
import { SelfCallMarkingLive } from "./platform/SelfCalls.js"
import { ServerBases } from "./platform/ServerBases.js"
import { ServerConfig } from "./platform/ServerConfig.js"
import { TracingLive } from "./platform/Tracing.js"
import { PortalAssetsLive } from "./portal/Assets.js"
import { Account } from "./portal/operators/Account.js"
import { AccountHttpLive } from "./portal/operators/AccountHttp.js"
import { OperatorsHttpLive } from "./portal/operators/OperatorsHttp.js"
import { PortalAuthLive } from "./portal/operators/PortalAuthLive.js"
import { SecondFactor } from "./portal/operators/SecondFactor.js"
import { SessionHttpLive } from "./portal/operators/SessionHttp.js"
import { AppsHttpLive } from "./portal/pages/AppsHttp.js"
import { OverviewHttpLive } from "./portal/pages/OverviewHttp.js"
import { OverviewRepo } from "./portal/pages/OverviewRepo.js"
import { PortalApps } from "./portal/pages/PortalApps.js"
import { PortalSandbox } from "./portal/pages/Sandbox.js"
import { PortalSandboxHttpLive } from "./portal/pages/SandboxHttp.js"
import { UserChanges, UserPages } from "./portal/pages/UserPages.js"
import { PortalUsersHttpLive } from "./portal/pages/UsersHttp.js"
import { PortalWebhooks } from "./portal/pages/Webhooks.js"
import { PortalWebhooksHttpLive } from "./portal/pages/WebhooksHttp.js"
import { ServedApi } from "./portal/ServedApi.js"
import { SandboxRoutesLive } from "./sandbox/SandboxRoutes.js"
import { ScoresHttpLive } from "./scoring/Http.js"
import { ConnectionSyncLive } from "./sync/ConnectionSync.js"
import { PeriodicSyncLive } from "./sync/PeriodicSync.js"
import { RecordStore } from "./sync/RecordStore.js"
import { Resync } from "./sync/Resync.js"
import { SyncEngine, SyncSettings } from "./sync/SyncEngine.js"
import { SyncQueueLive } from "./sync/SyncQueue.js"
import { SyncStateRepo } from "./sync/SyncStateRepo.js"
import { Erasure, ErasureQueueLive, ErasureWork, ResumeErasuresLive, UserErasureLive } from "./users/Erasure.js"
import { ErasureRepo } from "./users/ErasureRepo.js"
import { UsersHttpLive } from "./users/Http.js"
import { WebhookRoutesLive } from "./webhooks/Http.js"
import { Webhooks } from "./webhooks/Webhooks.js"

/**
 * The services of the data model, without the listener, the connect flow or the sync runtime (`Data.ts`): what the
 * operator CLI needs, in a module of its own so its commands load no more than that.
 */
export { DataLive }

/**
 * The sync runtime: `SyncQueue` and `TokenExchange` for every role; the `ConnectionSync` entity,
 * the periodic sync and the token-exchange job where this process runs workers (`ROLE=all|worker`).
 */
const SyncLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  const settings = Layer.succeed(SyncSettings, {
    ...SyncSettings.defaultValue(),
    backfillDays: config.backfillDays,
    syncConcurrency: config.syncConcurrency,
    storeConcurrency: config.syncStoreConcurrency
  })
  const workers = config.role === "api"
    ? Layer.empty
    : Layer.mergeAll(ConnectionSyncLive, PeriodicSyncLive, TokenExchangeLive)
  return workers.pipe(
    Layer.provideMerge(TokenExchange.Default),
    Layer.provideMerge(SyncQueueLive),
    Layer.provideMerge(ShardingLive),
    Layer.provideMerge(SyncEngine.Default),
    Layer.provideMerge(RecordStore.Default),
    Layer.provideMerge(SyncStateRepo.Default),
    Layer.provide(settings)
  )
}))

/** The connect flow, provider webhooks and the sync: they call providers, so they need the listener. */
const ConnectLive = Layer.mergeAll(ConnectFlow.Default, Webhooks.Default, Resync.DefaultWithoutDependencies).pipe(
  Layer.provideMerge(SyncLive),
  Layer.provideMerge(ConnectionTokens.Default),
  Layer.provideMerge(ProviderAccess.Default),
  // The client every provider call goes through, its calls to the sandbox's simulators marked as this server's own.
  Layer.provideMerge(SelfCallMarkingLive),
  Layer.provideMerge(ServerBases.Default),
  Layer.provideMerge(ProviderHttpClientLive)
)

/**
 * The journal with the durable analysis of meal photos: the `MealAnalysis` entity registers on the
 * process's one cluster; API nodes (`ROLE=api`) only enqueue.
 */
const JournalLive = Layer.unwrapEffect(
  Effect.map(
    ServerConfig,
    (config) =>
      (config.role === "api" ? ResumePendingLive : Layer.mergeAll(MealAnalysisLive, ResumePendingLive)).pipe(
        Layer.provideMerge(Journal.Default),
        Layer.provideMerge(
          Layer.mergeAll(MealAnalyzerLive, NutrientResolver.Default, BlobStore.Default, AnalysisQueueLive)
        )
      )
  )
)

/**
 * Events out: the app's webhook endpoints for every role; the delivery worker where this process runs
 * workers (`ROLE=all|worker`) unless the operator turned it off (`WEBHOOK_DELIVERY=off`).
 */
const WebhooksOutLive = Layer.unwrapEffect(
  Effect.map(
    ServerConfig,
    (config) =>
      (config.role === "api" || !config.webhookDelivery ? Layer.empty : DeliveryWorkerLive).pipe(
        Layer.provideMerge(Layer.mergeAll(Endpoints.Default, Delivery.Default))
      )
  )
)

/**
 * Erasure: the `Erasure` service for every role, which hands erasures to the `UserErasure` entity; the entity
 * and the resumption of unfinished erasures where this process runs workers.
 */
const ErasureLive = Layer.unwrapEffect(
  Effect.map(
    ServerConfig,
    (config) =>
      Layer.mergeAll(
        Erasure.Default,
        config.role === "api" ? Layer.empty : Layer.mergeAll(UserErasureLive, ResumeErasuresLive)
      ).pipe(
        Layer.provideMerge(ErasureQueueLive),
        Layer.provideMerge(ErasureWork.Default),
        Layer.provideMerge(ErasureRepo.Default)
      )
  )
)

/** The portal's handlers, one layer per group, behind the session check. */
const PortalHttpLive = Layer.mergeAll(
  SessionHttpLive,
  OperatorsHttpLive,
  AppsHttpLive,
  PortalUsersHttpLive,
  PortalWebhooksHttpLive,
  PortalSandboxHttpLive,
  OverviewHttpLive,
  AccountHttpLive
).pipe(
  Layer.provide(PortalAuthLive),
  Layer.provide(Account.Default),
  Layer.provide(SecondFactor.Default),
  Layer.provide(OverviewRepo.Default),
  Layer.provide(PortalApps.DefaultWithoutDependencies),
  Layer.provide(
    Layer.mergeAll(UserChanges.Default, PortalWebhooks.Default, PortalSandbox.Default).pipe(
      Layer.provideMerge(UserPages.Default)
    )
  )
)

/** The contract's handlers and the portal's, one layer per group. */
export const ApiLive = HttpApiBuilder.api(ServedApi).pipe(
  Layer.provide([
    UsersHttpLive,
    ConnectionsHttpLive,
    HealthRecordsHttpLive,
    JournalHttpLive,
    ScoresHttpLive,
    InsightsHttpLive,
    CoverageHttpLive,
    OAuthHttpLive,
    WebhookEndpointsHttpLive,
    McpAccessHttpLive,
    PortalHttpLive
  ])
)

/**
 * The whole HTTP application: the API, the docs and OpenAPI routes, the root routes, provider
 * webhooks, the MCP server (`/mcp`), and in sandbox mode the simulators, all on one router.
 */
const HttpAppLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  const limiter = yield* RateLimiter
  const userToken = yield* UserTokenCheck
  // Spans cost a request work (the server span parses the URL and copies headers) that only an exporter uses.
  const tracing = Option.isSome(config.otelEndpoint)
  const middleware = makeAppMiddleware({
    trustProxy: config.trustProxy,
    hsts: hstsHeader(config),
    tracing,
    deadline: { requestMs: config.requestTimeoutMs, uploadMs: config.uploadTimeoutMs },
    rateLimit: limiter.middleware,
    authenticateUpload: userToken.check
  })
  return HttpApiBuilder.serve(middleware).pipe(
    HttpMiddleware.withTracerDisabledWhen(() => !tracing),
    Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(RootRoutesLive),
    Layer.provide(MetricsRoutesLive),
    Layer.provide(WebhookRoutesLive),
    Layer.provide(OAuthRoutesLive.pipe(Layer.provide([SandboxSignIn.Default, McpClients.Default]))),
    Layer.provide(McpRoutesLive.pipe(Layer.provide(McpTools.Default))),
    Layer.provide(SandboxRoutesLive),
    Layer.provide(PortalAssetsLive),
    Layer.provide(ApiLive)
  )
})).pipe(Layer.provide([RateLimiter.Default, UserTokenCheck.Default]), Layer.provide(McpAuthorization.Default))

/**
 * Everything the server runs, listening, given `ServerConfig`, a migrated `SqlClient` and the
 * `ProviderRegistry`.
 */
export const AppLive = HttpAppLive.pipe(
  Layer.provideMerge(EmbeddedMaintenanceLive),
  Layer.provideMerge(MetricsListenerLive),
  Layer.provideMerge(WebhooksOutLive),
  Layer.provideMerge(ErasureLive),
  Layer.provideMerge(JournalLive),
  Layer.provideMerge(ConnectLive),
  Layer.provideMerge(HttpServerLive),
  Layer.provideMerge(DataLive),
  // First, so that everything built after it makes its spans with the exporting tracer.
  Layer.provide(TracingLive)
)
export { SandboxSimulators } from "./sandbox/SandboxRoutes.js"
