/**
 * The operators' overview, per app or across every app: what needs a look without opening users one by
 * one. The counts come in one answer (`GET /portal/api/overview`); each list is paged on its own, newest
 * trouble first (the connections behind on sync: the longest behind first).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  AppId,
  BadRequest,
  ConnectionId,
  ConnectionStatus,
  NotFound,
  Provider,
  SyncState,
  Timestamp,
  UserId,
  WebhookEndpointId
} from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { PageCursor, PageLimit } from "./Paging.js"
import { PortalAuth } from "./Session.js"

/** Hours without a successful sync after which an active connection counts as behind, unless asked otherwise. */
export const defaultBehindHours = 24

export const BehindHours = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 720))

/** The app the overview is of; all apps without it. */
const OverviewScope = {
  app: Schema.optional(AppId),
  behindHours: Schema.optional(BehindHours)
}

export const ConnectionCounts = Schema.Struct({
  active: Schema.Int.annotations({ description: "Connections `Active`" }),
  reauthorize: Schema.Int.annotations({ description: "Connections waiting for the user to connect again" }),
  syncError: Schema.Int.annotations({ description: "Connections whose last sync failed (sync state `Error`)" }),
  rateLimited: Schema.Int.annotations({ description: "Connections waiting out their provider's rate limit" }),
  behind: Schema.Int.annotations({
    description: "Active connections of active users without a successful sync for over `behindHours`"
  })
}).annotations({ identifier: "ConnectionCounts" })

export const ProviderLimitState = Schema.Struct({
  provider: Provider,
  active: Schema.Int.annotations({ description: "Active connections to the provider" }),
  rateLimited: Schema.Int.annotations({ description: "Connections now waiting out the provider's rate limit" }),
  rateLimitedUntil: Schema.NullOr(Timestamp).annotations({
    description: "The latest time until which one of them waits"
  }),
  budgets: Schema.Array(Schema.Struct({
    requests: Schema.Int,
    windowSeconds: Schema.Int,
    per: Schema.Literal("user", "app")
  })).annotations({
    description: "The provider's documented request budgets; those per app pace every call of the app's users"
  })
}).annotations({ identifier: "ProviderLimitState" })

export class OverviewCounts extends Schema.Class<OverviewCounts>("OverviewCounts")({
  app: Schema.NullOr(AppId).annotations({ description: "The app counted; null for all apps" }),
  generatedAt: Timestamp,
  behindHours: Schema.Int,
  connections: ConnectionCounts,
  quarantine: Schema.Struct({
    records: Schema.Int,
    latestAt: Schema.NullOr(Timestamp).annotations({ description: "When the latest record was last seen" })
  }),
  webhookEndpoints: Schema.Struct({
    failing: Schema.Int.annotations({ description: "Enabled endpoints whose deliveries fail (`failingSince` set)" }),
    paused: Schema.Int.annotations({ description: "Endpoints paused by the circuit breaker now" }),
    disabled: Schema.Int.annotations({
      description: "Endpoints disabled (by an operator or the app, or after failing 5 days)"
    })
  }),
  deliveries: Schema.Struct({
    pending: Schema.Int.annotations({ description: "Deliveries waiting to be sent or retried" }),
    oldestPendingAt: Schema.NullOr(Timestamp),
    oldestPendingAgeSeconds: Schema.NullOr(Schema.Int)
  }),
  providers: Schema.Array(ProviderLimitState)
}) {}

export const ConnectionIssueKind = Schema.Literal("active", "reauthorize", "sync-error", "rate-limited", "behind")
export type ConnectionIssueKind = typeof ConnectionIssueKind.Type

export const ConnectionIssue = Schema.Struct({
  connectionId: ConnectionId,
  appId: AppId,
  appName: Schema.String,
  userId: UserId,
  externalUserId: Schema.String,
  provider: Provider,
  status: ConnectionStatus,
  statusReason: Schema.NullOr(Schema.String),
  syncState: SyncState,
  syncError: Schema.NullOr(Schema.String),
  rateLimitedUntil: Schema.NullOr(Timestamp),
  lastSyncedAt: Schema.NullOr(Timestamp),
  since: Timestamp.annotations({
    description: "What the list is ordered by: the connection's creation (active), its last change (reauthorize), " +
      "the sync state's last change (sync-error), the end of the wait (rate-limited), the last successful sync or " +
      "else the creation (behind)"
  })
}).annotations({ identifier: "ConnectionIssue" })

export class ConnectionIssuePage extends Schema.Class<ConnectionIssuePage>("ConnectionIssuePage")({
  data: Schema.Array(ConnectionIssue),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

export const QuarantineItem = Schema.Struct({
  connectionId: ConnectionId,
  appId: AppId,
  appName: Schema.String,
  userId: UserId,
  externalUserId: Schema.String,
  provider: Provider,
  kind: Schema.String,
  providerRecordId: Schema.NullOr(Schema.String),
  reason: Schema.String,
  firstSeenAt: Timestamp,
  lastSeenAt: Timestamp
}).annotations({ identifier: "QuarantineItem" })

export class QuarantinePage extends Schema.Class<QuarantinePage>("QuarantinePage")({
  data: Schema.Array(QuarantineItem),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

export const EndpointIssueKind = Schema.Literal("failing", "paused", "disabled", "backlog")
export type EndpointIssueKind = typeof EndpointIssueKind.Type

export const EndpointIssue = Schema.Struct({
  endpointId: WebhookEndpointId,
  appId: AppId,
  appName: Schema.String,
  url: Schema.String,
  enabled: Schema.Boolean,
  disabledReason: Schema.NullOr(Schema.String),
  failingSince: Schema.NullOr(Timestamp),
  pausedUntil: Schema.NullOr(Timestamp),
  failureStreak: Schema.Int,
  lastError: Schema.NullOr(Schema.String).annotations({ description: "The latest failed delivery's error" }),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastErrorAt: Schema.NullOr(Timestamp),
  pending: Schema.Int.annotations({ description: "Its deliveries waiting to be sent or retried" }),
  oldestPendingAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "EndpointIssue" })

export class EndpointIssuePage extends Schema.Class<EndpointIssuePage>("EndpointIssuePage")({
  data: Schema.Array(EndpointIssue),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

const pageParams = { cursor: Schema.optional(PageCursor), limit: Schema.optional(PageLimit) }

export class OverviewGroup extends HttpApiGroup.make("portalOverview")
  .add(
    HttpApiEndpoint.get("counts", "/portal/api/overview")
      .setUrlParams(Schema.Struct(OverviewScope))
      .addSuccess(OverviewCounts)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("connections", "/portal/api/overview/connections")
      .setUrlParams(Schema.Struct({ ...OverviewScope, ...pageParams, kind: ConnectionIssueKind }))
      .addSuccess(ConnectionIssuePage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("quarantine", "/portal/api/overview/quarantine")
      .setUrlParams(Schema.Struct({ app: Schema.optional(AppId), ...pageParams }))
      .addSuccess(QuarantinePage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("webhookEndpoints", "/portal/api/overview/webhook-endpoints")
      .setUrlParams(Schema.Struct({ app: Schema.optional(AppId), ...pageParams, kind: EndpointIssueKind }))
      .addSuccess(EndpointIssuePage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
