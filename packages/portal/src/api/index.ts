/**
 * The admin portal's JSON API (`/portal/api/...`), used only by the portal's own pages. It is not part
 * of the public contract: its groups are left out of `/openapi.json` and the typed client, and it may
 * change with the pages. Operators authenticate with a session cookie (`PortalAuth`); every change also
 * carries the session's CSRF token in `X-CSRF-Token`.
 *
 * It lives beside the pages so that they read their JSON shapes from these schemas (as types only) and
 * the server implements the same groups: the server adds them to the contract's `Api` (`ServedApi`), so
 * they share its decoding, error bodies, request logging, deadlines and rate limits.
 */
import {
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "@effect/platform"
import {
  AppId,
  BadRequest,
  Conflict,
  Connection,
  ConnectionId,
  ContractString,
  DailyActivitySummary,
  DailyLoadSummary,
  DailyScore,
  DeliveryCursor,
  DeliveryPageLimit,
  ErasureAccepted,
  ExternalUserId,
  Forbidden,
  JournalEntryId,
  LocalDate,
  NotFound,
  Permission,
  Provider,
  ResyncAccepted,
  Timestamp,
  TooManyRequests,
  Unauthorized,
  User,
  UserId,
  uuidId,
  WebhookDelivery,
  WebhookDeliveryId,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointWithSecret
} from "@pulsebridge/domain"
import { ApiKeyId, CreateWebhookEndpointPayload, UpdateWebhookEndpointPayload } from "@pulsebridge/domain"
import { FaultSpecSchema } from "@pulsebridge/sandbox"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"

// ---------------------------------------------------------------------------------------------
// Operators and their sessions
// ---------------------------------------------------------------------------------------------

export const OperatorId = uuidId("OperatorId")
export type OperatorId = typeof OperatorId.Type

/** The session cookie: HttpOnly, Secure, SameSite=Strict, Path=/portal. */
export const sessionCookieName = "pb_portal_session"
/** The header every change carries: the session's CSRF token. */
export const csrfHeaderName = "x-csrf-token"

export const OperatorEmail = Schema.String.pipe(
  Schema.trimmed(),
  Schema.minLength(3),
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "must be an email address" })
).annotations({ identifier: "OperatorEmail" })

/** At least 12 characters; at most 1,024 so hashing cost stays bounded. */
export const OperatorPassword = Schema.String.pipe(Schema.minLength(12), Schema.maxLength(1024)).annotations({
  identifier: "OperatorPassword"
})

export const OperatorStatus = Schema.Literal("Active", "Disabled")

export class Operator extends Schema.Class<Operator>("Operator")({
  id: OperatorId,
  email: Schema.String,
  status: OperatorStatus,
  createdAt: Timestamp,
  lastLoginAt: Schema.NullOr(Timestamp)
}) {}

/** The operator a request's session belongs to. */
export class CurrentOperator extends Context.Tag("@pulsebridge/server/CurrentOperator")<CurrentOperator, {
  readonly operatorId: OperatorId
  readonly email: string
  readonly sessionId: string
}>() {}

/**
 * Checks the session cookie (401 when missing, unknown, expired or the operator is disabled) and, on
 * every method but GET and HEAD, the `X-CSRF-Token` header against the session's token (403).
 */
export class PortalAuth extends HttpApiMiddleware.Tag<PortalAuth>()("PortalAuth", {
  failure: Schema.Union(Unauthorized, Forbidden),
  provides: CurrentOperator,
  security: {
    portalSession: HttpApiSecurity.apiKey({ key: sessionCookieName, in: "cookie" })
  }
}) {}

export class PortalSession extends Schema.Class<PortalSession>("PortalSession")({
  operator: Operator,
  csrfToken: Schema.String,
  sandbox: Schema.Boolean.annotations({ description: "Whether the server runs in sandbox mode (the sandbox page)" }),
  publicUrl: Schema.String.annotations({ description: "The server's public base URL" })
}) {}

export class LoginPayload extends Schema.Class<LoginPayload>("LoginPayload")({
  email: Schema.String.pipe(Schema.maxLength(254)),
  password: Schema.String.pipe(Schema.maxLength(1024))
}) {}

/** Sets the password of an operator created without one, with the token of its one-time setup link. */
export class SetupPayload extends Schema.Class<SetupPayload>("SetupPayload")({
  token: Schema.String.pipe(Schema.maxLength(200)),
  password: OperatorPassword
}) {}

export class SessionGroup extends HttpApiGroup.make("portalSession")
  .add(
    HttpApiEndpoint.post("login", "/portal/api/login")
      .setPayload(LoginPayload)
      .addSuccess(PortalSession)
      .addError(Unauthorized)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Sets the session cookie. A wrong email or password is one generic 401; failed attempts grow the delay " +
          "before the next attempt for that email and for that address (429 with retryAfterSeconds)."
      )
  )
  .add(
    HttpApiEndpoint.post("setup", "/portal/api/setup")
      .setPayload(SetupPayload)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest)
  )
  .add(HttpApiEndpoint.get("session", "/portal/api/session").addSuccess(PortalSession).middleware(PortalAuth))
  .add(HttpApiEndpoint.post("logout", "/portal/api/logout").addSuccess(HttpApiSchema.NoContent).middleware(PortalAuth))
  .annotate(OpenApi.Exclude, true)
{}

// ---------------------------------------------------------------------------------------------
// Audit log
// ---------------------------------------------------------------------------------------------

export class AuditEvent extends Schema.Class<AuditEvent>("AuditEvent")({
  id: Schema.String,
  at: Timestamp,
  operatorId: Schema.NullOr(OperatorId),
  operatorEmail: Schema.NullOr(Schema.String).annotations({ description: "null for the CLI or an anonymous attempt" }),
  action: Schema.String.annotations({ description: "e.g. `apiKey.create`, `login.failed`, `user.erase`" }),
  targetType: Schema.NullOr(Schema.String),
  targetId: Schema.NullOr(Schema.String),
  appId: Schema.NullOr(AppId),
  detail: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "What changed; never a secret or a password"
  }),
  address: Schema.NullOr(Schema.String)
}) {}

export const PageCursor = Schema.String.pipe(Schema.maxLength(200))
export const PageLimit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200))

export class AuditPage extends Schema.Class<AuditPage>("AuditPage")({
  data: Schema.Array(AuditEvent),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

export class OperatorsGroup extends HttpApiGroup.make("portalOperators")
  .add(
    HttpApiEndpoint.get("audit", "/portal/api/audit")
      .setUrlParams(Schema.Struct({ cursor: Schema.optional(PageCursor), limit: Schema.optional(PageLimit) }))
      .addSuccess(AuditPage)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("operators", "/portal/api/operators").addSuccess(
      Schema.Struct({ data: Schema.Array(Operator) })
    )
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}

// ---------------------------------------------------------------------------------------------
// Apps, API keys, provider credentials
// ---------------------------------------------------------------------------------------------

export const AppName = ContractString({ minLength: 1, maxLength: 200, freeText: true }, "The app's name")

export class PortalApp extends Schema.Class<PortalApp>("PortalApp")({
  id: AppId,
  name: Schema.String,
  createdAt: Timestamp,
  users: Schema.Int.annotations({ description: "Users of the app that are not erased" })
}) {}

export class AppPayload extends Schema.Class<AppPayload>("AppPayload")({ name: AppName }) {}

export const KeyName = ContractString({ maxLength: 200, freeText: true }, "A note of the operator's own")

export class ApiKeySummary extends Schema.Class<ApiKeySummary>("ApiKeySummary")({
  id: ApiKeyId,
  name: Schema.NullOr(Schema.String),
  prefix: Schema.String.annotations({ description: "The first characters of the key, to recognise it" }),
  permissions: Schema.Array(Permission),
  createdAt: Timestamp,
  lastUsedAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp)
}) {}

export class CreateKeyPayload extends Schema.Class<CreateKeyPayload>("CreateKeyPayload")({
  name: Schema.optional(KeyName),
  permissions: Schema.Array(Permission).pipe(Schema.minItems(1))
}) {}

export class CreatedKey extends Schema.Class<CreatedKey>("CreatedKey")({
  key: ApiKeySummary,
  apiKey: Schema.String.annotations({ description: "The whole key: shown this once, never again" })
}) {}

/** One provider as an app has (or has not) set it up. Secrets are never answered. */
export class ProviderSetup extends Schema.Class<ProviderSetup>("ProviderSetup")({
  provider: Provider,
  displayName: Schema.String,
  authTypes: Schema.Array(Schema.Literal("OAuth2", "OAuth1")).annotations({
    description: "The kinds of credentials the provider accepts"
  }),
  configured: Schema.Boolean,
  authType: Schema.NullOr(Schema.Literal("OAuth2", "OAuth1")),
  clientId: Schema.NullOr(Schema.String).annotations({
    description: "Not a secret: shown to recognise the credentials"
  }),
  scopes: Schema.NullOr(Schema.String),
  updatedAt: Schema.NullOr(Timestamp),
  callbackUrl: Schema.String.annotations({ description: "The redirect URL to register at the provider" }),
  webhookUrl: Schema.NullOr(Schema.String).annotations({
    description: "The URL the provider pushes to; null for providers that do not push"
  })
}) {}

// Contract strings: no control characters, NUL or lone surrogates, as everywhere in the API.
const SecretText = ContractString({ minLength: 1, maxLength: 4096 })
const PlainText = ContractString({ minLength: 1, maxLength: 1024 })

/** Sets or replaces an app's credentials at a provider; the secret fields are write-only. */
export class ProviderCredentialsPayload extends Schema.Class<ProviderCredentialsPayload>("ProviderCredentialsPayload")({
  clientId: PlainText,
  clientSecret: SecretText,
  authType: Schema.optional(Schema.Literal("OAuth2", "OAuth1")),
  scopes: Schema.optional(PlainText),
  oauth1ClientId: Schema.optional(PlainText),
  oauth1ClientSecret: Schema.optional(SecretText),
  webhookVerificationCode: Schema.optional(SecretText)
}) {}

const appPath = Schema.Struct({ appId: AppId })

export class AppsGroup extends HttpApiGroup.make("portalApps")
  .add(HttpApiEndpoint.get("list", "/portal/api/apps").addSuccess(Schema.Struct({ data: Schema.Array(PortalApp) })))
  .add(HttpApiEndpoint.post("create", "/portal/api/apps").setPayload(AppPayload).addSuccess(PortalApp, { status: 201 }))
  .add(HttpApiEndpoint.get("get", "/portal/api/apps/:appId").setPath(appPath).addSuccess(PortalApp).addError(NotFound))
  .add(
    HttpApiEndpoint.patch("rename", "/portal/api/apps/:appId")
      .setPath(appPath)
      .setPayload(AppPayload)
      .addSuccess(PortalApp)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("keys", "/portal/api/apps/:appId/keys")
      .setPath(appPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(ApiKeySummary) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("createKey", "/portal/api/apps/:appId/keys")
      .setPath(appPath)
      .setPayload(CreateKeyPayload)
      .addSuccess(CreatedKey, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("revokeKey", "/portal/api/apps/:appId/keys/:keyId/revoke")
      .setPath(Schema.Struct({ appId: AppId, keyId: ApiKeyId }))
      .addSuccess(ApiKeySummary)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("providers", "/portal/api/apps/:appId/providers")
      .setPath(appPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(ProviderSetup) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setProvider", "/portal/api/apps/:appId/providers/:provider")
      .setPath(Schema.Struct({ appId: AppId, provider: Provider }))
      .setPayload(ProviderCredentialsPayload)
      .addSuccess(ProviderSetup)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}

// ---------------------------------------------------------------------------------------------
// Webhook endpoints of an app (the same service as `/api/v1/webhook-endpoints`)
// ---------------------------------------------------------------------------------------------

const endpointPath = Schema.Struct({ appId: AppId, endpointId: WebhookEndpointId })

export class WebhooksGroup extends HttpApiGroup.make("portalWebhooks")
  .add(
    HttpApiEndpoint.get("list", "/portal/api/apps/:appId/webhook-endpoints")
      .setPath(appPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(WebhookEndpoint) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/portal/api/apps/:appId/webhook-endpoints")
      .setPath(appPath)
      .setPayload(CreateWebhookEndpointPayload)
      .addSuccess(WebhookEndpointWithSecret, { status: 201 })
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.patch("update", "/portal/api/apps/:appId/webhook-endpoints/:endpointId")
      .setPath(endpointPath)
      .setPayload(UpdateWebhookEndpointPayload)
      .addSuccess(WebhookEndpoint)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries")
      .setPath(endpointPath)
      .setUrlParams(
        Schema.Struct({ cursor: Schema.optional(DeliveryCursor), limit: Schema.optional(DeliveryPageLimit) })
      )
      .addSuccess(WebhookDeliveryPage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.post(
      "retry",
      "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry"
    )
      .setPath(Schema.Struct({ appId: AppId, endpointId: WebhookEndpointId, deliveryId: WebhookDeliveryId }))
      .addSuccess(WebhookDelivery)
      .addError(NotFound)
      .addError(Conflict)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}

// ---------------------------------------------------------------------------------------------
// Users of an app and a user's page
// ---------------------------------------------------------------------------------------------

export class UserSummary extends Schema.Class<UserSummary>("UserSummary")({
  id: UserId,
  externalUserId: Schema.String,
  status: Schema.String,
  createdAt: Timestamp,
  connections: Schema.Array(Schema.Struct({ provider: Provider, status: Schema.String, syncState: Schema.String }))
}) {}

export class UserPage extends Schema.Class<UserPage>("UserPage")({
  data: Schema.Array(UserSummary),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

export class UserDetail extends Schema.Class<UserDetail>("UserDetail")({
  user: User,
  connections: Schema.Array(Connection)
}) {}

/** A journal entry as the user page lists it: enough to mark it on the glucose chart and show its photo. */
export class JournalMark extends Schema.Class<JournalMark>("JournalMark")({
  id: JournalEntryId,
  kind: Schema.String,
  title: Schema.NullOr(Schema.String),
  consumedAtUtc: Timestamp,
  localDate: LocalDate,
  analysisStatus: Schema.NullOr(Schema.String),
  energyKcal: Schema.NullOr(Schema.Number),
  imageUrl: Schema.NullOr(Schema.String).annotations({ description: "The portal URL of the entry's photo" })
}) {}

/**
 * A point of the glucose chart: the mean of a connection's readings in one bucket of
 * `UserOverview.glucoseBucketMinutes` minutes (by system time), so a year stays a chartable size.
 */
export class GlucosePoint extends Schema.Class<GlucosePoint>("GlucosePoint")({
  connectionId: ConnectionId,
  provider: Provider,
  time: Timestamp.annotations({ description: "Start of the bucket" }),
  value: Schema.Number.annotations({ description: "Mean of the bucket's readings, in `unit`" }),
  unit: Schema.String,
  readings: Schema.Int.annotations({ description: "How many readings the mean is of" })
}) {}

/** Everything the user page charts, for `days` days ending today in the user's time zone. */
export class UserOverview extends Schema.Class<UserOverview>("UserOverview")({
  from: LocalDate,
  to: LocalDate,
  timezone: Schema.String,
  dailyActivity: Schema.Array(DailyActivitySummary),
  dailyLoad: Schema.Array(DailyLoadSummary),
  glucoseBucketMinutes: Schema.Int.annotations({
    description: "5 up to 14 days (each reading of a 5-minute CGM), 15 up to 92 days, 60 beyond"
  }),
  glucose: Schema.Array(GlucosePoint),
  meals: Schema.Array(JournalMark),
  scores: Schema.Array(DailyScore).annotations({
    description: "With their factor breakdown, as the scores endpoint answers them"
  })
}) {}

export const OverviewDays = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 366))

/** Erasure from the portal is confirmed by typing the user's external id. */
export class ErasePayload extends Schema.Class<ErasePayload>("ErasePayload")({
  confirmExternalUserId: ExternalUserId
}) {}

const userPath = Schema.Struct({ userId: UserId })

export class UsersGroup extends HttpApiGroup.make("portalUsers")
  .add(
    HttpApiEndpoint.get("list", "/portal/api/apps/:appId/users")
      .setPath(appPath)
      .setUrlParams(Schema.Struct({
        search: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
        cursor: Schema.optional(PageCursor),
        limit: Schema.optional(PageLimit)
      }))
      .addSuccess(UserPage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("get", "/portal/api/users/:userId").setPath(userPath).addSuccess(UserDetail).addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("overview", "/portal/api/users/:userId/overview")
      .setPath(userPath)
      .setUrlParams(Schema.Struct({ days: Schema.optional(OverviewDays) }))
      .addSuccess(UserOverview)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("journal", "/portal/api/users/:userId/journal")
      .setPath(userPath)
      .setUrlParams(Schema.Struct({ from: Schema.optional(LocalDate), to: Schema.optional(LocalDate) }))
      .addSuccess(Schema.Struct({ data: Schema.Array(JournalMark) }))
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("photo", "/portal/api/users/:userId/journal/:entryId/photo")
      .setPath(Schema.Struct({ userId: UserId, entryId: JournalEntryId }))
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/*" }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("resync", "/portal/api/users/:userId/connections/:connectionId/sync")
      .setPath(Schema.Struct({ userId: UserId, connectionId: ConnectionId }))
      .addSuccess(ResyncAccepted, { status: 202 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.get("export", "/portal/api/users/:userId/export")
      .setPath(userPath)
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-ndjson" }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("erase", "/portal/api/users/:userId/erase")
      .setPath(userPath)
      .setPayload(ErasePayload)
      .addSuccess(ErasureAccepted, { status: 202 })
      .addError(NotFound)
      .addError(BadRequest)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}

// ---------------------------------------------------------------------------------------------
// Sandbox page (sandbox mode only; 404 otherwise)
// ---------------------------------------------------------------------------------------------

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
      .setPath(userPath)
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
