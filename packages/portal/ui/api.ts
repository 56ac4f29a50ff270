/**
 * The portal's client of its JSON API (`/portal/api/...`, declared in `src/api/`): the JSON shapes the
 * pages read, and one `request` that sends the session cookie, the CSRF token on every change, and turns
 * an error body (`{_tag, message}`) into an `ApiError` the pages can show. The shapes are the encoded
 * sides of the API's schemas, imported as types only, so the bundle carries no schema library.
 */
import type * as Domain from "@pulsebridge/domain"
import type * as PortalApi from "../src/api/index.js"

export type Permission = typeof Domain.Permission.Encoded
export const permissions: ReadonlyArray<Permission> = ["users:read", "users:write", "webhooks:read", "webhooks:write"]

export type Operator = typeof PortalApi.Operator.Encoded
export type OperatorRole = typeof PortalApi.OperatorRole.Encoded
export type OperatorWithSetupLink = typeof PortalApi.OperatorWithSetupLink.Encoded
export type SecondFactorChallenge = typeof PortalApi.SecondFactorChallenge.Encoded
export type TotpEnrolment = typeof PortalApi.TotpEnrolment.Encoded
export type RecoveryCodes = typeof PortalApi.RecoveryCodes.Encoded
export type PortalSettings = typeof PortalApi.PortalSettings.Encoded
export type Session = typeof PortalApi.PortalSession.Encoded
export type SessionState = typeof PortalApi.SessionState.Encoded
export type AuditEvent = typeof PortalApi.AuditEvent.Encoded
export type AuditPage = typeof PortalApi.AuditPage.Encoded
export type AuditActorType = typeof PortalApi.AuditActorType.Encoded
/** The audit log's filters as its URL takes them (times as ISO 8601 in UTC). */
export type AuditFilters = { readonly [K in keyof typeof PortalApi.AuditFilters.Encoded]?: string }

export type PortalApp = typeof PortalApi.PortalApp.Encoded
export type AssistantSignIn = typeof PortalApi.AssistantSignIn.Encoded
export type ApiKeySummary = typeof PortalApi.ApiKeySummary.Encoded
export type CreateKeyPayload = typeof PortalApi.CreateKeyPayload.Encoded
export type CreatedKey = typeof PortalApi.CreatedKey.Encoded
export type ProviderSetup = typeof PortalApi.ProviderSetup.Encoded
export type AuthType = ProviderSetup["authTypes"][number]

export type WebhookEndpoint = typeof Domain.WebhookEndpoint.Encoded
export type WebhookEndpointWithSecret = typeof Domain.WebhookEndpointWithSecret.Encoded
export type CreateWebhookEndpointPayload = typeof Domain.CreateWebhookEndpointPayload.Encoded
export type UpdateWebhookEndpointPayload = typeof Domain.UpdateWebhookEndpointPayload.Encoded
export type WebhookDelivery = typeof Domain.WebhookDelivery.Encoded
export type WebhookDeliveryPage = typeof Domain.WebhookDeliveryPage.Encoded
export type WebhookEventType = typeof Domain.WebhookEventType.Encoded
export type DeliveryStatus = typeof Domain.DeliveryStatus.Encoded
export type RotatedWebhookSecret = typeof Domain.RotatedWebhookSecret.Encoded
export type WebhookTestSent = typeof Domain.WebhookTestSent.Encoded
export type EndpointDetail = typeof PortalApi.EndpointDetail.Encoded
export type DeliveryDetail = typeof PortalApi.DeliveryDetail.Encoded
export type DeliveryAttempt = typeof PortalApi.DeliveryAttempt.Encoded
/** The deliveries log's filters as its URL takes them. */
export interface DeliveryFilters {
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: WebhookEventType | undefined
}

/** Every event type, in the contract's order (the check below fails the build when the contract gains one). */
export const webhookEventTypes = [
  "connection.created",
  "connection.updated",
  "connection.deleted",
  "sync.backfill.completed",
  "data.updated",
  "journal.analysis.completed",
  "journal.analysis.failed",
  "scores.updated",
  "user.deleted",
  "user.erased",
  "webhook.test"
] as const satisfies ReadonlyArray<WebhookEventType>
const everyEventTypeListed: Exclude<WebhookEventType, (typeof webhookEventTypes)[number]> extends never ? true
  : false = true
void everyEventTypeListed

export const deliveryStatuses: ReadonlyArray<DeliveryStatus> = ["Pending", "Delivered", "Failed"]

export type UserSummary = typeof PortalApi.UserSummary.Encoded
export type UserPage = typeof PortalApi.UserPage.Encoded
export type User = typeof Domain.User.Encoded
export type Connection = typeof Domain.Connection.Encoded
export type UserDetail = typeof PortalApi.UserDetail.Encoded
export type JournalMark = typeof PortalApi.JournalMark.Encoded
export type ScoreFactor = typeof Domain.ScoreFactor.Encoded
export type PillarBreakdown = typeof Domain.PillarBreakdown.Encoded
export type DailyScore = typeof Domain.DailyScore.Encoded
export type UserOverview = typeof PortalApi.UserOverview.Encoded
/** The user page's range as its address holds it: `days`, or `from` and `to` (the server checks them). */
export type OverviewRange = { readonly [K in keyof typeof PortalApi.OverviewRange.Encoded]?: string | undefined }
export type ResyncAccepted = typeof Domain.ResyncAccepted.Encoded
export type ErasureAccepted = typeof Domain.ErasureAccepted.Encoded

export type OverviewCounts = typeof PortalApi.OverviewCounts.Encoded
export type ConnectionIssueKind = typeof PortalApi.ConnectionIssueKind.Encoded
export type ConnectionIssuePage = typeof PortalApi.ConnectionIssuePage.Encoded
export type QuarantinePage = typeof PortalApi.QuarantinePage.Encoded
export type EndpointIssueKind = typeof PortalApi.EndpointIssueKind.Encoded
export type EndpointIssuePage = typeof PortalApi.EndpointIssuePage.Encoded

export type Fault = typeof PortalApi.FaultSpec.Encoded
export type SimulatorFaults = typeof PortalApi.SimulatorFaults.Encoded
export type SandboxTestUser = typeof PortalApi.SandboxTestUser.Encoded
export type SandboxTestUserPage = typeof PortalApi.SandboxTestUserPage.Encoded
export type ConnectAllResult = typeof PortalApi.ConnectAllResult.Encoded

/** An answer other than 2xx, with the server's `_tag` and `message`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
    readonly body: Record<string, unknown>
  ) {
    super(message)
  }
}

// Written out rather than imported so no module of the API enters the bundle; the type keeps it the API's name.
const csrfHeader: typeof PortalApi.csrfHeaderName = "x-csrf-token"
let csrfToken: string | undefined

/** Remembers the session's CSRF token, which every change sends. */
export const setCsrfToken = (token: string | undefined) => {
  csrfToken = token
}

/** Called when any request finds the session gone, so the shell can show the login page. */
let onUnauthorized: () => void = () => {}
export const setUnauthorizedHandler = (handler: () => void) => {
  onUnauthorized = handler
}

export const request = async <A>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  options: { readonly ignoreUnauthorized?: boolean } = {}
): Promise<A> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (body !== undefined) headers["content-type"] = "application/json"
  if (method !== "GET" && csrfToken !== undefined) headers[csrfHeader] = csrfToken
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = text === "" ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  if (!response.ok) {
    const error = (json !== null && typeof json === "object" ? json : {}) as Record<string, unknown>
    if (response.status === 401 && options.ignoreUnauthorized !== true) onUnauthorized()
    throw new ApiError(
      response.status,
      typeof error._tag === "string" ? error._tag : "Error",
      typeof error.message === "string" ? error.message : `The server answered ${response.status}`,
      error
    )
  }
  return json as A
}

/** `?a=1&b=2` from the defined entries, or "". */
export const query = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined)
  return entries.length === 0 ? "" : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`
}

export const api = {
  /** The session, or null when this browser holds none (no error, so nothing is logged on the login page). */
  session: () =>
    request<SessionState>("GET", "/portal/api/session/current", undefined, { ignoreUnauthorized: true }).then((
      state
    ) => state.session),
  login: (email: string, password: string) =>
    request<Session | SecondFactorChallenge>(
      "POST",
      "/portal/api/login",
      { email, password },
      { ignoreUnauthorized: true }
    ),
  loginSecondFactor: (challenge: string, code: string) =>
    request<Session>("POST", "/portal/api/login/second-factor", { challenge, code }, { ignoreUnauthorized: true }),
  beginSecondFactor: () => request<TotpEnrolment>("POST", "/portal/api/account/second-factor"),
  confirmSecondFactor: (code: string) =>
    request<RecoveryCodes>("POST", "/portal/api/account/second-factor/confirm", { code }),
  disableSecondFactor: (code: string) => request<void>("POST", "/portal/api/account/second-factor/disable", { code }),
  settings: () => request<PortalSettings>("GET", "/portal/api/settings"),
  setSettings: (settings: PortalSettings) => request<PortalSettings>("PUT", "/portal/api/settings", settings),
  logout: () => request<void>("POST", "/portal/api/logout"),
  setup: (token: string, password: string) =>
    request<void>("POST", "/portal/api/setup", { token, password }, { ignoreUnauthorized: true }),
  audit: (filters: AuditFilters, cursor?: string) =>
    request<AuditPage>("GET", `/portal/api/audit${query({ ...filters, cursor, limit: 50 })}`),
  auditExportUrl: (format: "csv" | "jsonl", filters: AuditFilters) =>
    `/portal/api/audit/export${query({ format, ...filters })}`,
  changePassword: (currentPassword: string, newPassword: string) =>
    request<void>("POST", "/portal/api/account/password", { currentPassword, newPassword }),
  operators: () => request<{ data: ReadonlyArray<Operator> }>("GET", "/portal/api/operators"),
  createOperator: (email: string, role: OperatorRole) =>
    request<OperatorWithSetupLink>("POST", "/portal/api/operators", { email, role }),
  setRole: (operatorId: string, role: OperatorRole) =>
    request<Operator>("PUT", `/portal/api/operators/${operatorId}/role`, { role }),
  disableOperator: (operatorId: string) => request<Operator>("POST", `/portal/api/operators/${operatorId}/disable`),
  enableOperator: (operatorId: string) => request<Operator>("POST", `/portal/api/operators/${operatorId}/enable`),
  resetSecondFactor: (operatorId: string) =>
    request<Operator>("POST", `/portal/api/operators/${operatorId}/reset-second-factor`),
  resetPassword: (operatorId: string) =>
    request<OperatorWithSetupLink>("POST", `/portal/api/operators/${operatorId}/reset-password`),
  apps: () => request<{ data: ReadonlyArray<PortalApp> }>("GET", "/portal/api/apps"),
  overviewCounts: (app?: string) => request<OverviewCounts>("GET", `/portal/api/overview${query({ app })}`),
  overviewConnections: (kind: ConnectionIssueKind, app?: string, cursor?: string) =>
    request<ConnectionIssuePage>("GET", `/portal/api/overview/connections${query({ kind, app, cursor, limit: 25 })}`),
  overviewQuarantine: (app?: string, cursor?: string) =>
    request<QuarantinePage>("GET", `/portal/api/overview/quarantine${query({ app, cursor, limit: 25 })}`),
  overviewEndpoints: (kind: EndpointIssueKind, app?: string, cursor?: string) =>
    request<EndpointIssuePage>(
      "GET",
      `/portal/api/overview/webhook-endpoints${query({ kind, app, cursor, limit: 25 })}`
    ),
  app: (appId: string) => request<PortalApp>("GET", `/portal/api/apps/${appId}`),
  createApp: (name: string) => request<PortalApp>("POST", "/portal/api/apps", { name }),
  renameApp: (appId: string, name: string) => request<PortalApp>("PATCH", `/portal/api/apps/${appId}`, { name }),
  assistantSignIn: (appId: string) => request<AssistantSignIn>("GET", `/portal/api/apps/${appId}/assistant-sign-in`),
  setAssistantSignIn: (appId: string, assistantSignInUrl: string | null) =>
    request<AssistantSignIn>("PUT", `/portal/api/apps/${appId}/assistant-sign-in`, { assistantSignInUrl }),
  keys: (appId: string) => request<{ data: ReadonlyArray<ApiKeySummary> }>("GET", `/portal/api/apps/${appId}/keys`),
  createKey: (appId: string, body: CreateKeyPayload) =>
    request<CreatedKey>("POST", `/portal/api/apps/${appId}/keys`, body),
  revokeKey: (appId: string, keyId: string) =>
    request<ApiKeySummary>("POST", `/portal/api/apps/${appId}/keys/${keyId}/revoke`),
  providers: (appId: string) =>
    request<{ data: ReadonlyArray<ProviderSetup> }>("GET", `/portal/api/apps/${appId}/providers`),
  setProvider: (appId: string, provider: string, body: Record<string, string>) =>
    request<ProviderSetup>("PUT", `/portal/api/apps/${appId}/providers/${encodeURIComponent(provider)}`, body),
  webhooks: (appId: string) =>
    request<{ data: ReadonlyArray<WebhookEndpoint> }>("GET", `/portal/api/apps/${appId}/webhook-endpoints`),
  createWebhook: (appId: string, body: CreateWebhookEndpointPayload) =>
    request<WebhookEndpointWithSecret>("POST", `/portal/api/apps/${appId}/webhook-endpoints`, body),
  updateWebhook: (appId: string, endpointId: string, body: UpdateWebhookEndpointPayload) =>
    request<WebhookEndpoint>("PATCH", `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}`, body),
  webhook: (appId: string, endpointId: string) =>
    request<EndpointDetail>("GET", `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}`),
  deleteWebhook: (appId: string, endpointId: string) =>
    request<void>("DELETE", `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}`),
  rotateWebhookSecret: (appId: string, endpointId: string) =>
    request<RotatedWebhookSecret>("POST", `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/rotate-secret`),
  testWebhook: (appId: string, endpointId: string) =>
    request<WebhookTestSent>("POST", `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/test`),
  deliveries: (appId: string, endpointId: string, filters: DeliveryFilters, cursor?: string) =>
    request<WebhookDeliveryPage>(
      "GET",
      `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/deliveries${query({ ...filters, cursor, limit: 20 })}`
    ),
  delivery: (appId: string, endpointId: string, deliveryId: string) =>
    request<DeliveryDetail>(
      "GET",
      `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/deliveries/${deliveryId}`
    ),
  retryDelivery: (appId: string, endpointId: string, deliveryId: string) =>
    request<WebhookDelivery>(
      "POST",
      `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/retry`
    ),
  users: (appId: string, search: string, cursor?: string) =>
    request<UserPage>(
      "GET",
      `/portal/api/apps/${appId}/users${query({ search: search === "" ? undefined : search, cursor, limit: 25 })}`
    ),
  user: (userId: string) => request<UserDetail>("GET", `/portal/api/users/${userId}`),
  overview: (userId: string, range: OverviewRange) =>
    request<UserOverview>("GET", `/portal/api/users/${userId}/overview${query(range)}`),
  journal: (userId: string, from: string, to: string) =>
    request<{ data: ReadonlyArray<JournalMark> }>("GET", `/portal/api/users/${userId}/journal${query({ from, to })}`),
  resync: (userId: string, connectionId: string) =>
    request<ResyncAccepted>("POST", `/portal/api/users/${userId}/connections/${connectionId}/sync`),
  exportUrl: (userId: string) => `/portal/api/users/${userId}/export`,
  erase: (userId: string, confirmExternalUserId: string) =>
    request<ErasureAccepted>("POST", `/portal/api/users/${userId}/erase`, { confirmExternalUserId }),
  testUser: (appId: string, externalUserId?: string) =>
    request<UserDetail>("POST", "/portal/api/sandbox/test-users", {
      appId,
      ...(externalUserId === undefined || externalUserId === "" ? {} : { externalUserId })
    }),
  testUsers: (appId: string, cursor?: string) =>
    request<SandboxTestUserPage>("GET", `/portal/api/sandbox/apps/${appId}/test-users${query({ cursor, limit: 25 })}`),
  sandboxTestUser: (appId: string, userId: string) =>
    request<SandboxTestUser>("GET", `/portal/api/sandbox/apps/${appId}/test-users/${userId}`),
  connectAll: (appId: string, userId: string) =>
    request<ConnectAllResult>("POST", `/portal/api/sandbox/apps/${appId}/test-users/${userId}/connect-all`),
  sandboxConnect: (userId: string, provider: string) =>
    request<Connection>("POST", `/portal/api/sandbox/users/${userId}/connections`, { provider }),
  faults: () => request<{ data: ReadonlyArray<SimulatorFaults> }>("GET", "/portal/api/sandbox/faults"),
  setFaults: (provider: string, faults: ReadonlyArray<Fault>) =>
    request<SimulatorFaults>("PUT", `/portal/api/sandbox/faults/${encodeURIComponent(provider)}`, { faults })
}
