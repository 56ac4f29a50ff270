/**
 * The hosted connect flow: connect sessions (endpoint 7), the OAuth 2.0 and OAuth 1.0a
 * callbacks (23, 24) that turn a consent into a connection, and disconnecting (9).
 *
 * A session's state is at least 128 random bits, stored only as a hash, and works once: the
 * callback claims it with a single conditional update. Provider tokens are sealed before they
 * are stored. Every outcome of a callback with a known session is a redirect to the app's
 * `redirectUrl` with `success=true|false`; without a known session there is nowhere to send
 * the user, so the answer is a 400 JSON error.
 *
 * A new connection's `connection.created`, a reactivated one's `connection.updated` and a
 * disconnected one's `connection.deleted` are written in the transaction of the change.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, CreateConnectSessionPayload, UserId } from "@pulsebridge/domain"
import { ConnectSession } from "@pulsebridge/domain"
import type { ProviderError, TokenSet } from "@pulsebridge/providers"
import { InsufficientScope, makeCodeVerifier, makeState } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { newId } from "../platform/Ids.js"
import { SecretBox } from "../platform/SecretBox.js"
import { ServerBases } from "../platform/ServerBases.js"
import { traced } from "../platform/Traced.js"
import { SyncQueue } from "../sync/SyncQueue.js"
import { ConnectionEvents } from "./ConnectionEvents.js"
import { ConnectionsRepo } from "./ConnectionsRepo.js"
import type { SessionRow } from "./ConnectSessionsRepo.js"
import { ConnectSessionsRepo } from "./ConnectSessionsRepo.js"
import { AuthorizationUnavailable, ConnectionNotFound, RedirectUrlRefused } from "./Errors.js"
import { GrantRevocation } from "./GrantRevocation.js"
import { ProviderAccess, splitScopes } from "./ProviderAccess.js"

export const SessionLifetimeMs = 15 * 60 * 1000

const hashState = (state: string) => crypto.createHash("sha256").update(state).digest("hex")

const isLoopbackHost = (host: string) => host === "localhost" || host === "127.0.0.1" || host === "[::1]"

/** Absolute; https, or http only for a loopback host; no credentials or fragment. */
export const checkRedirectUrl = (value: string, prefixes: ReadonlyArray<string>): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "redirectUrl must be an absolute URL"
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    return "redirectUrl must use https (http is allowed only for localhost)"
  }
  if (url.username !== "" || url.password !== "") return "redirectUrl must not carry credentials"
  if (url.hash !== "") return "redirectUrl must not have a fragment"
  if (prefixes.length > 0 && !prefixes.some((prefix) => value.startsWith(prefix))) {
    return "redirectUrl does not start with any of the app's allowed redirect URL prefixes"
  }
  return undefined
}

export type CallbackOutcome =
  | { readonly _tag: "Redirect"; readonly location: string }
  | { readonly _tag: "NoSession"; readonly message: string }

const redirectTo = (redirectUrl: string, params: Record<string, string>): CallbackOutcome => {
  const url = new URL(redirectUrl)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return { _tag: "Redirect", location: url.toString() }
}

/** The redirect URL registered at a provider: where its consent page sends the browser back to. */
export const callbackUrlOf = (publicBase: string, authType: "OAuth2" | "OAuth1") =>
  `${publicBase}/api/v1/connections/callback${authType === "OAuth1" ? "/oauth1" : ""}`

/** Why a callback failed, as the app's redirect will say it. */
interface CallbackFailure {
  readonly code: string
  readonly message: string
  /** With `insufficient_scope`: the scopes the user did not grant (`missing_scope` in the redirect). */
  readonly missingScopes?: ReadonlyArray<string> | undefined
}

/** A provider's refusal during the callback: a scope the user did not grant, or a failed exchange. */
const providerFailure = (error: ProviderError): CallbackFailure =>
  error.code === InsufficientScope
    ? { code: InsufficientScope, message: error.message, missingScopes: error.missingScopes }
    : { code: "exchange_failed", message: error.message }

/** Error codes we pass on from a provider's redirect; anything else is reported generically. */
const safeErrorCode = (code: string) => /^[a-z_]{1,40}$/.test(code) ? code : "authorization_failed"

export class ConnectFlow extends Effect.Service<ConnectFlow>()("@pulsebridge/server/ConnectFlow", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const syncQueue = yield* SyncQueue
    const connections = yield* ConnectionsRepo
    const events = yield* ConnectionEvents
    const sessions = yield* ConnectSessionsRepo
    const box = yield* SecretBox
    const access = yield* ProviderAccess
    const bases = yield* ServerBases
    const revocation = yield* GrantRevocation
    const httpClient = yield* HttpClient.HttpClient
    const withClient = Effect.provideService(HttpClient.HttpClient, httpClient)

    const callbackUrl = (authType: "OAuth2" | "OAuth1") => callbackUrlOf(bases.publicBase, authType)

    const createSession = traced("ConnectFlow.createSession")(function*(
      user: { readonly appId: AppId; readonly userId: UserId },
      payload: CreateConnectSessionPayload
    ) {
      const resolved = yield* access.resolve(user.appId, payload.provider)
      const problem = checkRedirectUrl(payload.redirectUrl, resolved.redirectUrlPrefixes)
      if (problem !== undefined) return yield* new RedirectUrlRefused({ reason: problem })
      const scopes = payload.scopes === undefined || payload.scopes === null
        ? resolved.scopes
        : splitScopes(payload.scopes)
      const state = makeState()
      const codeVerifier = makeCodeVerifier()
      const start = yield* resolved.adapter.startAuthorization({
        credentials: resolved.credentials,
        endpoints: resolved.endpoints,
        callbackUrl: callbackUrl(resolved.adapter.authType),
        state,
        scopes,
        codeVerifier
      }).pipe(
        withClient,
        Effect.tapError((e) => Effect.logWarning("Could not start an authorization", e.message)),
        Effect.mapError((e) => new AuthorizationUnavailable({ provider: payload.provider, reason: e.message }))
      )
      const id = newId()
      const expiresAt = new Date((yield* Clock.currentTimeMillis) + SessionLifetimeMs)
      yield* sessions.insert({
        id,
        appId: user.appId,
        userId: user.userId,
        provider: payload.provider,
        stateHash: hashState(state),
        requestToken: start.requestToken,
        redirectUrl: payload.redirectUrl,
        scopes: scopes.join(" "),
        codeVerifierSealed: start.usesPkce ? box.seal(codeVerifier) : null,
        requestTokenSecretSealed: start.requestTokenSecret === null ? null : box.seal(start.requestTokenSecret),
        expiresAt
      })
      return new ConnectSession({ id, authorizationUrl: start.authorizationUrl, expiresAt })
    })

    /**
     * The connection with its event: `connection.created` when new, `connection.updated` when the
     * user's existing one changes status (a `Reauthorize` one made Active again).
     */
    const upsertConnection = (session: SessionRow, providerUserId: string, tokenSet: TokenSet) =>
      Effect.gen(function*() {
        const upserted = yield* connections.upsertActive({
          id: newId(),
          appId: session.appId,
          userId: session.userId,
          provider: session.provider,
          providerUserId,
          accessTokenSealed: box.seal(tokenSet.accessToken),
          refreshTokenSealed: tokenSet.refreshToken === null ? null : box.seal(tokenSet.refreshToken),
          tokenSecretSealed: tokenSet.tokenSecret === null ? null : box.seal(tokenSet.tokenSecret),
          tokenExpiresAt: tokenSet.expiresAt,
          scopes: tokenSet.scopes
        })
        if (upserted.created) yield* events.created(upserted.id)
        else if (upserted.previousStatus !== "Active") yield* events.updated(upserted.id)
        return upserted.id
      }).pipe(sql.withTransaction, Effect.orDie)

    /** Exchange, provider user id, connection: the part of a callback that talks to the provider. */
    const complete = traced("ConnectFlow.complete")(function*(session: SessionRow, code: string) {
      const resolved = yield* access.resolve(session.appId, session.provider).pipe(
        Effect.mapError((e): CallbackFailure => ({ code: "provider_not_configured", message: e.message }))
      )
      const codeVerifier = session.codeVerifierSealed === null
        ? null
        : yield* Effect.orDie(box.open(session.codeVerifierSealed))
      const requestTokenSecret = session.requestTokenSecretSealed === null
        ? null
        : yield* Effect.orDie(box.open(session.requestTokenSecretSealed))
      const tokenSet = yield* resolved.adapter.exchange({
        credentials: resolved.credentials,
        endpoints: resolved.endpoints,
        callbackUrl: callbackUrl(resolved.adapter.authType),
        code,
        codeVerifier: codeVerifier === null ? null : Redacted.value(codeVerifier),
        scopes: splitScopes(session.scopes),
        requestToken: session.requestToken,
        requestTokenSecret
      }).pipe(withClient, Effect.mapError(providerFailure))
      // Consent screens let users untick scopes: without the required ones nothing could be read.
      const granted = new Set(splitScopes(tokenSet.scopes))
      const missing = (resolved.adapter.requiredScopes ?? []).filter((scope) => !granted.has(scope))
      if (missing.length > 0) {
        return yield* Effect.fail<CallbackFailure>({
          code: InsufficientScope,
          message: `the user did not grant ${missing.join(" ")}`,
          missingScopes: missing
        })
      }
      const providerUserId = tokenSet.providerUserId ?? (yield* resolved.adapter.providerUserId({
        credentials: resolved.credentials,
        endpoints: resolved.endpoints,
        tokens: tokenSet
      }).pipe(withClient, Effect.mapError(providerFailure)))
      return yield* upsertConnection(session, providerUserId, tokenSet)
    })

    const finish = traced("ConnectFlow.finish")(function*(
      session: SessionRow,
      input: { readonly code?: string | undefined; readonly error?: string | undefined }
    ) {
      const fail = (error: string) =>
        Effect.as(
          sessions.claim(session.id, error),
          redirectTo(session.redirectUrl, { success: "false", error, provider: session.provider })
        )
      if (session.usedAt !== null) {
        return redirectTo(session.redirectUrl, {
          success: "false",
          error: "session_already_used",
          provider: session.provider
        })
      }
      if (session.expiresAt.getTime() < (yield* Clock.currentTimeMillis)) return yield* fail("session_expired")
      if (input.error !== undefined) return yield* fail(safeErrorCode(input.error))
      if (input.code === undefined || input.code === "") return yield* fail("access_denied")
      // Claim before talking to the provider: a replayed callback must not exchange again.
      const claimed = yield* sessions.claim(session.id, "pending")
      if (!claimed) {
        return redirectTo(session.redirectUrl, {
          success: "false",
          error: "session_already_used",
          provider: session.provider
        })
      }
      const result = yield* Effect.either(complete(session, input.code))
      if (result._tag === "Left") {
        yield* Effect.logWarning("Connect callback failed", result.left.message).pipe(
          Effect.annotateLogs({ provider: session.provider, sessionId: session.id })
        )
        yield* sessions.setOutcome(session.id, result.left.code)
        const missing = result.left.missingScopes ?? []
        return redirectTo(session.redirectUrl, {
          success: "false",
          error: result.left.code,
          provider: session.provider,
          ...(missing.length > 0 ? { missing_scope: missing.join(" ") } : {})
        })
      }
      yield* sessions.setOutcome(session.id, "connected")
      // History is read in the background; the user comes back to the app at once.
      yield* syncQueue.backfill(result.right)
      return redirectTo(session.redirectUrl, {
        success: "true",
        provider: session.provider,
        connectionId: result.right
      })
    })

    const noSession = (message: string): CallbackOutcome => ({ _tag: "NoSession", message })

    return {
      createSession,

      /** Endpoint 23: `code` and `state`, or the provider's `error`. */
      callbackOAuth2: traced("ConnectFlow.callbackOAuth2")(function*(
        params: {
          readonly code?: string | undefined
          readonly state?: string | undefined
          readonly error?: string | undefined
        }
      ) {
        if (params.state === undefined || params.state === "") return noSession("The callback has no state")
        const session = yield* sessions.byStateHash(hashState(params.state))
        if (Option.isNone(session)) return noSession("Unknown state: no connect session matches this callback")
        return yield* finish(session.value, { code: params.code, error: params.error })
      }),

      /** Endpoint 24: `oauth_token` (the request token) and `oauth_verifier`. */
      callbackOAuth1: traced("ConnectFlow.callbackOAuth1")(function*(
        params: { readonly oauth_token?: string | undefined; readonly oauth_verifier?: string | undefined }
      ) {
        if (params.oauth_token === undefined || params.oauth_token === "") {
          return noSession("The callback has no oauth_token")
        }
        const session = yield* sessions.byRequestToken(params.oauth_token)
        if (Option.isNone(session)) return noSession("Unknown oauth_token: no connect session matches this callback")
        return yield* finish(session.value, { code: params.oauth_verifier })
      }),

      /**
       * Endpoint 9: revoke at the provider (best effort: a failure is logged, never fatal), then
       * mark the connection Disconnected and drop its tokens. Its data stays.
       */
      disconnect: traced("ConnectFlow.disconnect")(function*(userId: UserId, connectionId: string) {
        const found = yield* connections.findOpenOfUser(userId, connectionId)
        if (Option.isNone(found)) return yield* new ConnectionNotFound({ connectionId })
        const connection = found.value
        const revoked = yield* Effect.either(revocation.revoke(connection))
        if (revoked._tag === "Left") {
          yield* Effect.logWarning("Provider revoke failed; disconnecting locally anyway").pipe(
            Effect.annotateLogs({
              connectionId: connection.id,
              provider: connection.provider,
              reason: revoked.left.reason
            })
          )
        }
        yield* Effect.gen(function*() {
          const disconnected = yield* connections.markDisconnected(connection.id)
          if (Option.isSome(disconnected)) yield* events.deleted(disconnected.value)
        }).pipe(sql.withTransaction, Effect.orDie)
        yield* syncQueue.stop(connection.id)
      })
    } as const
  }),
  dependencies: [
    ConnectionsRepo.Default,
    ConnectSessionsRepo.Default,
    ConnectionEvents.Default,
    GrantRevocation.Default
  ]
}) {}
