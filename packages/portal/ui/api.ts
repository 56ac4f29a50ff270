/**
 * The portal's client of its JSON API (`/portal/api/...`, declared by the server's `PortalApi.ts`):
 * the JSON shapes the pages read, and one `request` that sends the session cookie, the CSRF token on
 * every change, and turns an error body (`{_tag, message}`) into an `ApiError` the pages can show.
 * The shapes are written out here rather than imported, so the bundle carries no schema library.
 */

export type Permission = "users:read" | "users:write" | "webhooks:read" | "webhooks:write"
export const permissions: ReadonlyArray<Permission> = ["users:read", "users:write", "webhooks:read", "webhooks:write"]

export interface Operator {
  readonly id: string
  readonly email: string
  readonly status: string
  readonly createdAt: string
  readonly lastLoginAt: string | null
}

export interface Session {
  readonly operator: Operator
  readonly csrfToken: string
  readonly sandbox: boolean
  readonly publicUrl: string
}

export interface PortalApp {
  readonly id: string
  readonly name: string
  readonly createdAt: string
  readonly users: number
}

export interface ApiKeySummary {
  readonly id: string
  readonly name: string | null
  readonly prefix: string
  readonly permissions: ReadonlyArray<Permission>
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export interface CreatedKey {
  readonly key: ApiKeySummary
  readonly apiKey: string
}

export type AuthType = "OAuth2" | "OAuth1"

export interface ProviderSetup {
  readonly provider: string
  readonly displayName: string
  readonly authTypes: ReadonlyArray<AuthType>
  readonly configured: boolean
  readonly authType: AuthType | null
  readonly clientId: string | null
  readonly scopes: string | null
  readonly updatedAt: string | null
  readonly callbackUrl: string
  readonly webhookUrl: string | null
}

export interface WebhookEndpoint {
  readonly id: string
  readonly url: string
  readonly description: string | null
  readonly events: ReadonlyArray<string>
  readonly enabled: boolean
  readonly disabledReason: string | null
  readonly failingSince: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

export interface WebhookDelivery {
  readonly id: string
  readonly eventId: string
  readonly eventType: string
  readonly status: "Pending" | "Delivered" | "Failed"
  readonly attempts: number
  readonly lastStatusCode: number | null
  readonly lastError: string | null
  readonly lastAttemptAt: string | null
  readonly nextAttemptAt: string | null
  readonly createdAt: string
  readonly completedAt: string | null
}

export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly nextCursor: string | null
}

export interface UserSummary {
  readonly id: string
  readonly externalUserId: string
  readonly status: string
  readonly createdAt: string
  readonly connections: ReadonlyArray<
    { readonly provider: string; readonly status: string; readonly syncState: string }
  >
}

export interface User {
  readonly id: string
  readonly appId: string
  readonly externalUserId: string
  readonly status: string
  readonly locale: string
  readonly timezone: string
  readonly createdAt: string
}

export interface Connection {
  readonly id: string
  readonly provider: string
  readonly status: string
  readonly syncState: string
  readonly lastSyncedAt: string | null
  readonly syncError: string | null
  readonly statusReason: string | null
  readonly quarantinedRecords: number
  readonly syncProgress: {
    readonly windowsDone: number
    readonly windowsTotal: number
    readonly oldestDateReached: string | null
  } | null
}

export interface UserDetail {
  readonly user: User
  readonly connections: ReadonlyArray<Connection>
}

export interface JournalMark {
  readonly id: string
  readonly kind: string
  readonly title: string | null
  readonly consumedAtUtc: string
  readonly localDate: string
  readonly analysisStatus: string | null
  readonly energyKcal: number | null
  readonly imageUrl: string | null
}

export interface ScoreFactor {
  readonly key: string
  readonly value: number | null
  readonly unit: string
  readonly subScore: number | null
  readonly weight: number
  readonly pointsLost: number
  readonly state: string
}

export interface PillarBreakdown {
  readonly score: number | null
  readonly coverage: number
  readonly calibrating: boolean
  readonly factors: ReadonlyArray<ScoreFactor>
}

export interface DailyScore {
  readonly date: string
  readonly sleepScore: number | null
  readonly activityScore: number | null
  readonly recoveryScore: number | null
  readonly overallScore: number | null
  readonly components: {
    readonly sleep: PillarBreakdown
    readonly activity: PillarBreakdown
    readonly recovery: PillarBreakdown
  }
}

export interface UserOverview {
  readonly from: string
  readonly to: string
  readonly timezone: string
  readonly dailyActivity: ReadonlyArray<{ readonly date: string; readonly provider: string; readonly steps: number }>
  readonly dailyLoad: ReadonlyArray<{ readonly date: string; readonly provider: string; readonly loadScore: number }>
  /** Minutes per glucose point: the server averages readings into buckets so long ranges stay small. */
  readonly glucoseBucketMinutes: number
  readonly glucose: ReadonlyArray<
    { readonly time: string; readonly provider: string; readonly value: number; readonly unit: string }
  >
  readonly meals: ReadonlyArray<JournalMark>
  readonly scores: ReadonlyArray<DailyScore>
}

export interface Fault {
  readonly kind: string
  readonly path: string
  readonly method?: string
  readonly count?: number
  readonly retryAfterSeconds?: number
  readonly delayMs?: number
}

export interface SimulatorFaults {
  readonly provider: string
  /** Pending knobs, each with how many more requests it will hit. */
  readonly faults: ReadonlyArray<Fault & { readonly remaining: number }>
}

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
  if (method !== "GET" && csrfToken !== undefined) headers["x-csrf-token"] = csrfToken
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
  session: () => request<Session>("GET", "/portal/api/session", undefined, { ignoreUnauthorized: true }),
  login: (email: string, password: string) =>
    request<Session>("POST", "/portal/api/login", { email, password }, { ignoreUnauthorized: true }),
  logout: () => request<void>("POST", "/portal/api/logout"),
  setup: (token: string, password: string) =>
    request<void>("POST", "/portal/api/setup", { token, password }, { ignoreUnauthorized: true }),
  audit: (cursor?: string) => request<Page<AuditEvent>>("GET", `/portal/api/audit${query({ cursor, limit: 50 })}`),
  apps: () => request<{ data: ReadonlyArray<PortalApp> }>("GET", "/portal/api/apps"),
  app: (appId: string) => request<PortalApp>("GET", `/portal/api/apps/${appId}`),
  createApp: (name: string) => request<PortalApp>("POST", "/portal/api/apps", { name }),
  renameApp: (appId: string, name: string) => request<PortalApp>("PATCH", `/portal/api/apps/${appId}`, { name }),
  keys: (appId: string) => request<{ data: ReadonlyArray<ApiKeySummary> }>("GET", `/portal/api/apps/${appId}/keys`),
  createKey: (appId: string, body: { name?: string; permissions: ReadonlyArray<Permission> }) =>
    request<CreatedKey>("POST", `/portal/api/apps/${appId}/keys`, body),
  revokeKey: (appId: string, keyId: string) =>
    request<ApiKeySummary>("POST", `/portal/api/apps/${appId}/keys/${keyId}/revoke`),
  providers: (appId: string) =>
    request<{ data: ReadonlyArray<ProviderSetup> }>("GET", `/portal/api/apps/${appId}/providers`),
  setProvider: (appId: string, provider: string, body: Record<string, string>) =>
    request<ProviderSetup>("PUT", `/portal/api/apps/${appId}/providers/${encodeURIComponent(provider)}`, body),
  webhooks: (appId: string) =>
    request<{ data: ReadonlyArray<WebhookEndpoint> }>("GET", `/portal/api/apps/${appId}/webhook-endpoints`),
  createWebhook: (appId: string, body: { url: string; description?: string }) =>
    request<WebhookEndpoint & { secret: string }>("POST", `/portal/api/apps/${appId}/webhook-endpoints`, body),
  updateWebhook: (appId: string, endpointId: string, body: { enabled: boolean }) =>
    request<WebhookEndpoint>("PATCH", `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}`, body),
  deliveries: (appId: string, endpointId: string, cursor?: string) =>
    request<Page<WebhookDelivery>>(
      "GET",
      `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/deliveries${query({ cursor, limit: 20 })}`
    ),
  retryDelivery: (appId: string, endpointId: string, deliveryId: string) =>
    request<WebhookDelivery>(
      "POST",
      `/portal/api/apps/${appId}/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/retry`
    ),
  users: (appId: string, search: string, cursor?: string) =>
    request<Page<UserSummary>>(
      "GET",
      `/portal/api/apps/${appId}/users${query({ search: search === "" ? undefined : search, cursor, limit: 25 })}`
    ),
  user: (userId: string) => request<UserDetail>("GET", `/portal/api/users/${userId}`),
  overview: (userId: string, days = 14) =>
    request<UserOverview>("GET", `/portal/api/users/${userId}/overview${query({ days })}`),
  journal: (userId: string) =>
    request<{ data: ReadonlyArray<JournalMark> }>("GET", `/portal/api/users/${userId}/journal`),
  resync: (userId: string, connectionId: string) =>
    request<unknown>("POST", `/portal/api/users/${userId}/connections/${connectionId}/sync`),
  exportUrl: (userId: string) => `/portal/api/users/${userId}/export`,
  erase: (userId: string, confirmExternalUserId: string) =>
    request<unknown>("POST", `/portal/api/users/${userId}/erase`, { confirmExternalUserId }),
  testUser: (appId: string, externalUserId?: string) =>
    request<UserDetail>("POST", "/portal/api/sandbox/test-users", {
      appId,
      ...(externalUserId === undefined || externalUserId === "" ? {} : { externalUserId })
    }),
  sandboxConnect: (userId: string, provider: string) =>
    request<Connection>("POST", `/portal/api/sandbox/users/${userId}/connections`, { provider }),
  faults: () => request<{ data: ReadonlyArray<SimulatorFaults> }>("GET", "/portal/api/sandbox/faults"),
  setFaults: (provider: string, faults: ReadonlyArray<Fault>) =>
    request<SimulatorFaults>("PUT", `/portal/api/sandbox/faults/${encodeURIComponent(provider)}`, { faults })
}

export interface AuditEvent {
  readonly id: string
  readonly at: string
  readonly operatorEmail: string | null
  readonly action: string
  readonly targetType: string | null
  readonly targetId: string | null
  readonly appId: string | null
  readonly detail: Record<string, unknown>
  readonly address: string | null
}
