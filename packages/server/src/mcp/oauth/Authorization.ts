/**
 * The MCP authorization server's rules (docs/mcp.md): the authorization request (sent on to the app's sign-in
 * URL as a signed `pb_request`), the app's sign-in assertion, the consent, the token endpoint (codes with PKCE,
 * rotating refresh tokens), revocation, and the tokens themselves: what a presented `pb_mt_` token opens, the
 * tokens an app issues through the API, and the grants it lists and revokes. Every secret is stored as its
 * SHA-256 only; time comes from `Clock`.
 */
import type { AppId, CurrentUser } from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isUuid } from "../../platform/Ids.js"
import { SecretBox } from "../../platform/SecretBox.js"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import { traced } from "../../platform/Traced.js"
import { UsersRepo } from "../../users/UsersRepo.js"
import { McpClients } from "./Clients.js"
import type { AssertionRow, GrantRow } from "./OAuthRepo.js"
import { OAuthRepo } from "./OAuthRepo.js"
import {
  isCodeChallenge,
  Lifetimes,
  McpAssertionPrefix,
  McpCodePrefix,
  McpRefreshPrefix,
  McpScopes,
  McpTokenPrefix,
  newSecret,
  parseScope,
  pkceMatches,
  sha256Hex,
  signRequest,
  verifyRequest,
  withParams
} from "./Rules.js"

/** Shown as a page, never redirected: the client or its redirect URI cannot be trusted with an answer. */
export class AuthorizePageError extends Data.TaggedError("AuthorizePageError")<{
  readonly message: string
  readonly status: number
}> {}

/** An RFC 6749 error (`error`, `error_description`) of the token, registration or revocation endpoint. */
export class OAuthProtocolError extends Data.TaggedError("OAuthProtocolError")<{
  readonly error: string
  readonly message: string
  readonly status: number
}> {}

/** Why the app's sign-in assertion is refused. */
export class AssertionRefused extends Data.TaggedError("AssertionRefused")<{
  readonly reason: "InvalidRequest" | "Expired" | "Used" | "OtherApp" | "UnknownUser"
  readonly message: string
}> {}

export class GrantNotFound extends Data.TaggedError("GrantNotFound")<{ readonly message: string }> {}

/** What a live `pb_mt_` token opens. */
export interface McpAccess {
  readonly user: typeof CurrentUser.Service
  readonly scopes: ReadonlySet<string>
  /** The MCP URL the token is bound to; null for an API-issued token (served at `/mcp`). */
  readonly resource: string | null
  readonly grantId: string
}

/** The consent page's content. */
export interface ConsentView {
  readonly assertion: string
  readonly csrf: string
  readonly appName: string
  readonly clientName: string
  readonly clientUri: string | null
  readonly clientId: string
  readonly redirectHost: string
  readonly scopes: ReadonlyArray<string>
}

const oauthError = (error: string, message: string, status = 400) => new OAuthProtocolError({ error, message, status })

export const appIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export class McpAuthorization extends Effect.Service<McpAuthorization>()("@pulsebridge/server/McpAuthorization", {
  effect: Effect.gen(function*() {
    const repo = yield* OAuthRepo
    const clients = yield* McpClients
    const users = yield* UsersRepo
    const box = yield* SecretBox
    const { publicBase } = yield* ServerBases
    const { sandbox } = yield* ServerConfig
    const signingKey = box.derive("mcp-sign-in-request.v1")
    const issuer = publicBase
    const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    /** The app's user by id (none for an id that is not a UUID). */
    const findUser = (appId: AppId, userId: string) =>
      isUuid(userId) ? users.findById(appId, userId) : Effect.succeed(Option.none())

    /** The MCP URL of an app, the resource its tokens are bound to. */
    const resourceOf = (appId: string) => `${publicBase}/mcp/apps/${appId}`

    /** The app an MCP URL names, if it is one of this server's. */
    const appOfResource = (resource: string): string | undefined => {
      const prefix = `${publicBase}/mcp/apps/`
      if (!resource.startsWith(prefix)) return undefined
      const appId = resource.slice(prefix.length).toLowerCase()
      return appIdPattern.test(appId) ? appId : undefined
    }

    /** An access token and a refresh token of a grant. */
    const issueTokens = (grantId: string, scope: string, now: Date) =>
      Effect.gen(function*() {
        const access = newSecret(McpTokenPrefix)
        const refresh = newSecret(McpRefreshPrefix)
        yield* repo.insertToken({
          tokenHash: sha256Hex(access),
          grantId,
          kind: "access",
          expiresAt: new Date(now.getTime() + Lifetimes.accessSeconds * 1000)
        })
        yield* repo.insertToken({
          tokenHash: sha256Hex(refresh),
          grantId,
          kind: "refresh",
          expiresAt: new Date(now.getTime() + Lifetimes.refreshSeconds * 1000)
        })
        return {
          access_token: access,
          token_type: "Bearer",
          expires_in: Lifetimes.accessSeconds,
          refresh_token: refresh,
          scope
        }
      })

    /** A `resource` parameter of the token endpoint, when given, must be the grant's. */
    const checkResource = (given: string | undefined, bound: string | null) =>
      given !== undefined && given !== bound
        ? Effect.fail(oauthError("invalid_target", "resource is not the one this grant was made for"))
        : Effect.void

    return {
      resourceOf,
      appOfResource,
      issuer,

      /** The app's name and assistant sign-in URL (none for an unknown app). */
      app: (appId: string) => appIdPattern.test(appId) ? repo.appSignIn(appId) : Effect.succeed(Option.none()),

      /** The app a signed sign-in request is for, when its signature holds and it has not expired. */
      appOfRequest: (signed: string) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const verified = verifyRequest(signingKey, signed, Math.floor(now / 1000))
          return verified._tag === "Valid" ? Option.some(verified.request.appId as AppId) : Option.none<AppId>()
        }),

      // The authorization request ---------------------------------------------------------------------------

      /**
       * Checks an authorization request and answers where the browser goes next: the app's sign-in URL with the
       * signed request, or the client's redirect URI with an error. An unknown client or redirect URI fails
       * with a page.
       */
      authorize: traced("McpAuthorization.authorize")(
        function*(params: Readonly<Record<string, string | undefined>>) {
          const clientId = params.client_id
          if (clientId === undefined) {
            return yield* new AuthorizePageError({ status: 400, message: "The request names no client (client_id)." })
          }
          const client = yield* clients.resolve(clientId).pipe(
            Effect.mapError((error) =>
              new AuthorizePageError({ status: 400, message: `The client is not known: ${error.message}.` })
            )
          )
          const redirectUri = params.redirect_uri ??
            (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined)
          if (redirectUri === undefined || !client.redirectUris.includes(redirectUri)) {
            return yield* new AuthorizePageError({
              status: 400,
              message: "The redirect URI is not one the client registered."
            })
          }
          const state = params.state
          const back = (error: string, description: string) =>
            withParams(redirectUri, { error, error_description: description, state, iss: issuer })
          if (params.response_type !== "code") {
            return back("unsupported_response_type", "response_type must be code")
          }
          if (state !== undefined && state.length > 1024) return back("invalid_request", "state is too long")
          const challenge = params.code_challenge
          if (challenge === undefined || params.code_challenge_method !== "S256" || !isCodeChallenge(challenge)) {
            return back("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256")
          }
          const scopes = parseScope(params.scope)
          if (scopes._tag === "Unknown") return back("invalid_scope", `unknown scope: ${scopes.scope}`)
          const resource = params.resource
          const appId = resource === undefined ? undefined : appOfResource(resource)
          if (resource === undefined || appId === undefined) {
            return back("invalid_target", "resource must be an app's MCP URL on this server")
          }
          const app = yield* repo.appSignIn(appId)
          if (Option.isNone(app)) return back("invalid_target", "no app has this MCP URL")
          // In sandbox mode an app without a sign-in URL of its own uses the sandbox's demo sign-in page.
          const signInUrl = app.value.assistantSignInUrl ?? (sandbox ? `${publicBase}/sandbox/mcp-sign-in` : null)
          if (signInUrl === null) {
            return yield* new AuthorizePageError({
              status: 403,
              message: `${app.value.name} has not enabled assistant sign-in, so an assistant cannot connect to it yet.`
            })
          }
          const now = yield* Clock.currentTimeMillis
          const requestId = newSecret("")
          const expiresAt = Math.floor(now / 1000) + Lifetimes.requestSeconds
          yield* repo.insertRequest({
            idHash: sha256Hex(requestId),
            appId,
            clientId: client.clientId,
            redirectUri,
            state: state ?? null,
            codeChallenge: challenge,
            scope: scopes.scopes.join(" "),
            resource,
            expiresAt: new Date(expiresAt * 1000)
          })
          return withParams(signInUrl, { pb_request: signRequest(signingKey, { requestId, appId, expiresAt }) })
        }
      ),

      // The app's sign-in -----------------------------------------------------------------------------------

      /**
       * The app's assertion that its user `userId` signed in for the request `signed`: one use, valid five
       * minutes, bound to the request, the user and the app. Answers the consent page's URL.
       */
      createAssertion: traced("McpAuthorization.createAssertion")(
        function*(appId: AppId, signed: string, userId: string) {
          const now = yield* Clock.currentTimeMillis
          const verified = verifyRequest(signingKey, signed, Math.floor(now / 1000))
          if (verified._tag === "Invalid") {
            return yield* new AssertionRefused({
              reason: "InvalidRequest",
              message: "request is not a sign-in request of this server (pass pb_request as it arrived)"
            })
          }
          if (verified._tag === "Expired") {
            return yield* new AssertionRefused({
              reason: "Expired",
              message: "the sign-in request has expired; the assistant must start again"
            })
          }
          if (verified.request.appId !== appId) {
            return yield* new AssertionRefused({
              reason: "OtherApp",
              message: "the sign-in request is for another app"
            })
          }
          const user = yield* findUser(appId, userId)
          if (Option.isNone(user) || user.value.status !== "Active") {
            return yield* new AssertionRefused({ reason: "UnknownUser", message: `no active user with id ${userId}` })
          }
          const requestHash = sha256Hex(verified.request.requestId)
          if (!(yield* repo.useRequest(requestHash, new Date(now)))) {
            return yield* new AssertionRefused({
              reason: "Used",
              message: "the sign-in request was answered already or has expired; the assistant must start again"
            })
          }
          const assertion = newSecret(McpAssertionPrefix)
          const expiresAt = new Date(now + Lifetimes.assertionSeconds * 1000)
          yield* repo.insertAssertion({
            assertionHash: sha256Hex(assertion),
            requestHash,
            appId,
            userId: user.value.id,
            expiresAt
          })
          return { redirectUrl: withParams(`${publicBase}/oauth/consent`, { assertion }), expiresAt }
        }
      ),

      // The consent -----------------------------------------------------------------------------------------

      /** The consent page of a live assertion, with a new CSRF token bound to it. */
      consent: traced("McpAuthorization.consent")(function*(assertion: string) {
        const found = yield* repo.findAssertion(sha256Hex(assertion), yield* nowDate)
        if (Option.isNone(found)) {
          return yield* new AuthorizePageError({
            status: 400,
            message: "This sign-in link has expired or was used already. Start again from the assistant."
          })
        }
        const row = found.value
        const client = yield* clients.resolve(row.clientId).pipe(
          Effect.mapError(() =>
            new AuthorizePageError({ status: 400, message: "The client that asked is no longer known." })
          )
        )
        const csrf = newSecret("")
        yield* repo.setCsrf(row.assertionHash, sha256Hex(csrf))
        return {
          assertion,
          csrf,
          appName: row.appName,
          clientName: client.clientName,
          clientUri: client.clientUri,
          clientId: client.clientId,
          redirectHost: new URL(row.redirectUri).host,
          scopes: row.scope.split(" ")
        } satisfies ConsentView
      }),

      /**
       * The user's answer on the consent page: approved, a grant and a one-use code sent to the client; denied,
       * `access_denied`. The assertion is used either way. Answers the client's redirect URI.
       */
      decide: traced("McpAuthorization.decide")(
        function*(assertion: string, csrf: string, approve: boolean) {
          const now = yield* nowDate
          const found = yield* repo.findAssertion(sha256Hex(assertion), now)
          const stale = new AuthorizePageError({
            status: 400,
            message: "This consent form has expired or was sent already. Start again from the assistant."
          })
          if (Option.isNone(found)) return yield* stale
          const row: AssertionRow = found.value
          if (!(yield* repo.useAssertion(row.assertionHash, sha256Hex(csrf), now))) return yield* stale
          const state = row.state ?? undefined
          if (!approve) {
            return withParams(row.redirectUri, {
              error: "access_denied",
              error_description: "the user denied access",
              state,
              iss: issuer
            })
          }
          const client = yield* clients.resolve(row.clientId).pipe(Effect.mapError(() => stale))
          const grantId = yield* repo.insertGrant({
            appId: row.appId,
            userId: row.userId,
            clientId: row.clientId,
            clientName: client.clientName,
            scope: row.scope,
            resource: row.resource
          })
          const code = newSecret(McpCodePrefix)
          yield* repo.insertCode({
            codeHash: sha256Hex(code),
            grantId,
            clientId: row.clientId,
            redirectUri: row.redirectUri,
            codeChallenge: row.codeChallenge,
            expiresAt: new Date(now.getTime() + Lifetimes.codeSeconds * 1000)
          })
          return withParams(row.redirectUri, { code, state, iss: issuer })
        }
      ),

      // The token endpoint ----------------------------------------------------------------------------------

      token: traced("McpAuthorization.token")(function*(params: Readonly<Record<string, string | undefined>>) {
        const now = yield* nowDate
        const clientId = params.client_id
        if (clientId === undefined) return yield* oauthError("invalid_request", "client_id is required")
        if (params.grant_type === "authorization_code") {
          const { code, code_verifier: verifier, redirect_uri: redirectUri } = params
          if (code === undefined || verifier === undefined || redirectUri === undefined) {
            return yield* oauthError("invalid_request", "code, code_verifier and redirect_uri are required")
          }
          const hash = sha256Hex(code)
          const used = yield* repo.useCode(hash, now)
          if (Option.isNone(used)) {
            // A code presented twice: the first use may have been an attacker's, so its tokens go (OAuth 2.1 4.1.3).
            const grant = yield* repo.codeGrant(hash)
            if (Option.isSome(grant)) {
              yield* repo.revokeGrant(grant.value, now)
              return yield* oauthError(
                "invalid_grant",
                "the authorization code was used already; the tokens issued for it are revoked"
              )
            }
            return yield* oauthError("invalid_grant", "unknown authorization code")
          }
          const row = used.value
          if (row.expiresAt.getTime() <= now.getTime()) {
            return yield* oauthError("invalid_grant", "the authorization code has expired")
          }
          if (row.clientId !== clientId) {
            return yield* oauthError("invalid_grant", "the authorization code was issued to another client")
          }
          if (row.redirectUri !== redirectUri) {
            return yield* oauthError("invalid_grant", "redirect_uri is not the one of the authorization request")
          }
          if (!pkceMatches(verifier, row.codeChallenge)) {
            return yield* oauthError("invalid_grant", "code_verifier does not match the code_challenge")
          }
          yield* checkResource(params.resource, row.resource)
          return yield* issueTokens(row.grantId, row.scope, now)
        }
        if (params.grant_type === "refresh_token") {
          const refresh = params.refresh_token
          if (refresh === undefined) return yield* oauthError("invalid_request", "refresh_token is required")
          const hash = sha256Hex(refresh)
          const known = yield* repo.tokenGrant(hash)
          if (Option.isNone(known) || known.value.kind !== "refresh" || known.value.clientId !== clientId) {
            return yield* oauthError("invalid_grant", "unknown refresh token")
          }
          yield* checkResource(params.resource, known.value.resource)
          const used = yield* repo.useRefresh(hash, now)
          if (Option.isNone(used)) {
            if (known.value.usedAt !== null) {
              // A rotated refresh token used again: someone holds a copy, so the grant ends (OAuth 2.1 4.3.1).
              yield* repo.revokeGrant(known.value.grantId, now)
              return yield* oauthError(
                "invalid_grant",
                "the refresh token was used already; the grant is revoked and the user must sign in again"
              )
            }
            return yield* oauthError("invalid_grant", "the refresh token has expired or was revoked")
          }
          return yield* issueTokens(used.value.grantId, used.value.scope, now)
        }
        return yield* oauthError(
          "unsupported_grant_type",
          "grant_type must be authorization_code or refresh_token"
        )
      }),

      /**
       * Revocation (RFC 7009): an access token ends; a refresh token ends its whole grant. An unknown token, or one
       * of another client, changes nothing and is answered the same.
       */
      revoke: traced("McpAuthorization.revoke")(function*(token: string, clientId: string | undefined) {
        const now = yield* nowDate
        const hash = sha256Hex(token)
        const known = yield* repo.tokenGrant(hash)
        if (Option.isNone(known) || (clientId !== undefined && known.value.clientId !== clientId)) return
        if (known.value.kind === "refresh") yield* repo.revokeGrant(known.value.grantId, now)
        else yield* repo.revokeToken(hash, now)
      }),

      // Tokens -----------------------------------------------------------------------------------------------

      /** What a presented `pb_mt_` token opens, noting its grant's use; none when it is not a live access token. */
      access: traced("McpAuthorization.access")(function*(token: string) {
        const now = yield* nowDate
        const found = yield* repo.findAccess(sha256Hex(token), now)
        if (Option.isNone(found)) return Option.none<McpAccess>()
        const row = found.value
        if (row.lastUsedAt === null || now.getTime() - row.lastUsedAt.getTime() >= 60_000) {
          yield* repo.touchGrant(row.grantId, now)
        }
        return Option.some<McpAccess>({
          user: { appId: row.appId as AppId, userId: row.userId as never, timezone: row.timezone },
          scopes: new Set(row.scope.split(" ")),
          resource: row.resource,
          grantId: row.grantId
        })
      }),

      /** A token an app issues through the API for an assistant it embeds: served at `/mcp`, read-only, scoped. */
      issueApiToken: traced("McpAuthorization.issueApiToken")(
        function*(appId: AppId, userId: string, scope: ReadonlyArray<string> | undefined, expiresIn: number) {
          const user = yield* findUser(appId, userId)
          if (Option.isNone(user) || user.value.status !== "Active") {
            return yield* new GrantNotFound({ message: `no active user with id ${userId}` })
          }
          const scopes = scope === undefined || scope.length === 0
            ? [...McpScopes]
            : McpScopes.filter((known) => scope.includes(known))
          const now = yield* Clock.currentTimeMillis
          const grantId = yield* repo.insertGrant({
            appId,
            userId: user.value.id,
            clientId: null,
            clientName: "Issued through the API",
            scope: scopes.join(" "),
            resource: null
          })
          const token = newSecret(McpTokenPrefix)
          const expiresAt = new Date(now + expiresIn * 1000)
          yield* repo.insertToken({ tokenHash: sha256Hex(token), grantId, kind: "access", expiresAt })
          return { token, grantId, scopes, expiresAt }
        }
      ),

      listGrants: traced("McpAuthorization.listGrants")(function*(appId: AppId, userId: string) {
        const user = yield* findUser(appId, userId)
        if (Option.isNone(user)) return yield* new GrantNotFound({ message: `no user with id ${userId}` })
        const grants: ReadonlyArray<GrantRow> = yield* repo.listGrants(appId, user.value.id)
        return grants
      }),

      revokeGrant: traced("McpAuthorization.revokeGrant")(
        function*(appId: AppId, userId: string, grantId: string) {
          const user = yield* findUser(appId, userId)
          if (Option.isNone(user) || !appIdPattern.test(grantId.toLowerCase())) {
            return yield* new GrantNotFound({ message: `no grant with id ${grantId}` })
          }
          const revoked = yield* repo.revokeGrantOf(appId, user.value.id, grantId.toLowerCase(), yield* nowDate)
          if (!revoked) return yield* new GrantNotFound({ message: `no grant with id ${grantId}` })
        }
      )
    } as const
  }),
  dependencies: [OAuthRepo.Default, McpClients.Default, UsersRepo.Default]
}) {}
