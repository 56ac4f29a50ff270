/**
 * How a call to Garmin is authenticated, and how Garmin says no. A connection holds OAuth 1.0a
 * tokens (a user access token and its secret, signed with the app's consumer key and secret) or
 * OAuth 2.0 tokens (a bearer access token); every data and user call picks by the tokens it has,
 * so a connection keeps working through the move from one to the other. Garmin's error body is
 * `{"errorMessage": "..."}`; a 403 means the user's grant is gone (the user removed the app, or
 * the token was revoked), which is reported as `access_revoked` so the connection asks for a new
 * consent instead of retrying.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ClientCredentials, TokenInput } from "../Adapter.js"
import { AccessRevoked, ProviderError } from "../Adapter.js"
import * as OAuth1 from "../internal/OAuth1.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"

/** `{"errorMessage"}` from the Health API; RFC 6749 `{"error", "error_description"}` from the token endpoint. */
const readHealthApiError = ProviderHttp.errorReader(
  Schema.Struct({ errorMessage: Schema.String }),
  (body) => ({ description: body.errorMessage })
)
const readGarminError: ProviderHttp.ErrorReader = (body) =>
  Option.orElse(readHealthApiError(body), () => ProviderHttp.oauthErrorReader(body))

/** A Garmin call's context: its error body, and every secret of its input (the OAuth 1.0a consumer secret too). */
export const context = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Garmin",
  operation,
  readError: readGarminError,
  secrets: input === undefined
    ? []
    : [...ProviderHttp.secretsOf(input), input.credentials.oauth1?.clientSecret]
})

/** A 403 from Garmin: the user's access is gone (deregistered or revoked); anything else as it is. */
export const revokedOn403 = <A, R>(effect: Effect.Effect<A, ProviderError, R>): Effect.Effect<A, ProviderError, R> =>
  Effect.mapError(effect, (error) =>
    error.status === 403 && error.code === undefined
      ? new ProviderError({
        provider: error.provider,
        operation: error.operation,
        status: error.status,
        code: AccessRevoked,
        message: `${error.message} (the user's Garmin access was revoked; the user must connect again)`
      })
      : error)

/** The consumer key and secret that sign OAuth 1.0a calls: kept apart once the app has OAuth 2.0 credentials. */
export const oauth1Consumer = (credentials: ClientCredentials): ClientCredentials =>
  credentials.oauth1 === undefined
    ? credentials
    : { clientId: credentials.oauth1.clientId, clientSecret: credentials.oauth1.clientSecret }

/** An OAuth 1.0a signed request (its query, if any, is signed with the rest). */
export const signedRequest = (
  method: "GET" | "POST" | "DELETE",
  url: string,
  credentials: ClientCredentials,
  token?: OAuth1.SignedRequest["token"],
  oauthParams?: OAuth1.SignedRequest["oauthParams"]
) =>
  HttpClientRequest.make(method)(url).pipe(
    HttpClientRequest.setHeader(
      "Authorization",
      OAuth1.authorizationHeader({ method, url, credentials: oauth1Consumer(credentials), token, oauthParams })
    )
  )

/**
 * A request to `url` authenticated with the connection's tokens: signed when they are OAuth 1.0a
 * tokens, with the bearer access token otherwise.
 */
export const userRequest = (
  method: "GET" | "POST" | "DELETE",
  url: string,
  input: TokenInput
): HttpClientRequest.HttpClientRequest =>
  input.tokens.tokenSecret === null
    ? HttpClientRequest.make(method)(url).pipe(HttpClientRequest.bearerToken(input.tokens.accessToken))
    : signedRequest(method, url, input.credentials, {
      key: Redacted.value(input.tokens.accessToken),
      secret: input.tokens.tokenSecret
    })

/** Sends a user call, a 403 read as a revoked grant. */
export const sendUser = <A>(
  ctx: CallContext,
  request: HttpClientRequest.HttpClientRequest,
  read: Parameters<typeof ProviderHttp.send<A>>[2]
) => revokedOn403(ProviderHttp.send(ctx, request, read))

// ---- permissions ----

/**
 * What the user lets the app read, as Garmin lists it: a JSON array (the Start Guide) or
 * `{"permissions": [...]}` (seen in some integrations); both are read.
 */
export const PermissionsReply = Schema.Union(
  Schema.Array(Schema.String),
  Schema.Struct({ permissions: Schema.Array(Schema.String) })
)

export const permissionsOf = (reply: typeof PermissionsReply.Type): ReadonlyArray<string> =>
  "permissions" in reply ? reply.permissions : reply

/** The permission that lets an app read the Health API's summaries (dailies, sleeps, HRV, ...). */
export const healthExport = "HEALTH_EXPORT"
/** The permission that lets an app read the Activity API's summaries (activities). */
export const activityExport = "ACTIVITY_EXPORT"
/** The permission a backfill request needs; Garmin's consent page leaves it unticked. */
export const historicalDataExport = "HISTORICAL_DATA_EXPORT"

/** The user's permissions, space separated (a connection's `scopes`). */
export const readPermissions = (input: TokenInput): Effect.Effect<string, ProviderError, HttpClient.HttpClient> => {
  const ctx = context("permissions read", input)
  return sendUser(
    ctx,
    HttpClientRequest.acceptJson(
      userRequest("GET", `${input.endpoints.apiBaseUrl}/wellness-api/rest/user/permissions`, input)
    ),
    ProviderHttp.readJson(ctx, PermissionsReply)
  ).pipe(Effect.map((reply) => permissionsOf(reply).join(" ")))
}

/**
 * Whether the connection's permissions allow `permission`. Unknown permissions (empty scopes, as
 * connections made before Garmin's permissions were read have) allow everything: Garmin is then
 * the judge, and answers 412 for what is not permitted.
 */
export const permits = (scopes: string, permission: string): boolean => {
  const granted = scopes.split(/\s+/).filter((s) => s !== "")
  return granted.length === 0 || granted.includes(permission)
}
