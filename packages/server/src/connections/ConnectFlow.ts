/**
 * The hosted connect flow: connect sessions (endpoint 7), the OAuth 2.0 and OAuth 1.0a
 * callbacks (23, 24) that turn a consent into a connection, and disconnecting (9).
 *
 * A session's state is at least 128 random bits, stored only as a hash, and works once: the
 * callback claims it with a single conditional update. Provider tokens are sealed before they
 * are stored. Every outcome of a callback with a known session is a redirect to the app's
 * `redirectUrl` with `success=true|false`; without a known session there is nowhere to send
 * the user, so the answer is a 400 JSON error.
 */
import { HttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import type { AppId, ConnectionId, CreateConnectSessionPayload, Provider, UserId } from "@pulsebridge/domain"
import { BadRequest, ConnectSession, NotFound, ProviderUnavailable } from "@pulsebridge/domain"
import type { TokenSet } from "@pulsebridge/providers"
import { makeCodeVerifier, makeState } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { newId } from "../platform/Ids.js"
import { SecretBox } from "../platform/SecretBox.js"
import { ServerBases } from "../platform/ServerBases.js"
import { SyncQueue } from "../sync/SyncCluster.js"
import { ConnectionTokens } from "./ConnectionTokens.js"
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

interface SessionRow {
  readonly id: string
  readonly appId: AppId
  readonly userId: UserId
  readonly provider: Provider
  readonly redirectUrl: string
  readonly scopes: string
  readonly codeVerifierSealed: string | null
  readonly requestToken: string | null
  readonly requestTokenSecretSealed: string | null
  readonly expiresAt: Date
  readonly usedAt: Date | null
}

export type CallbackOutcome =
  | { readonly _tag: "Redirect"; readonly location: string }
  | { readonly _tag: "NoSession"; readonly message: string }

const redirectTo = (redirectUrl: string, params: Record<string, string>): CallbackOutcome => {
  const url = new URL(redirectUrl)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return { _tag: "Redirect", location: url.toString() }
}

/** Error codes we pass on from a provider's redirect; anything else is reported generically. */
const safeErrorCode = (code: string) => /^[a-z_]{1,40}$/.test(code) ? code : "authorization_failed"

export class ConnectFlow extends Effect.Service<ConnectFlow>()("@pulsebridge/server/ConnectFlow", {
  effect: Effect.gen(function*() {
    const syncQueue = yield* SyncQueue
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    const access = yield* ProviderAccess
    const bases = yield* ServerBases
    const tokens = yield* ConnectionTokens
    const httpClient = yield* HttpClient.HttpClient
    const withClient = Effect.provideService(HttpClient.HttpClient, httpClient)

    const callbackUrl = (authType: "OAuth2" | "OAuth1") =>
      `${bases.publicBase}/api/v1/connections/callback${authType === "OAuth1" ? "/oauth1" : ""}`

    const createSession = (
      user: { readonly appId: AppId; readonly userId: UserId },
      payload: CreateConnectSessionPayload
    ) =>
      Effect.gen(function*() {
        const resolved = yield* access.resolve(user.appId, payload.provider)
        const problem = checkRedirectUrl(payload.redirectUrl, resolved.redirectUrlPrefixes)
        if (problem !== undefined) return yield* new BadRequest({ message: problem })
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
          Effect.mapError((e) =>
            new ProviderUnavailable({ message: `${payload.provider} could not start the authorization: ${e.message}` })
          )
        )
        const id = newId()
        const expiresAt = new Date(Date.now() + SessionLifetimeMs)
        yield* sql`
          insert into connect_sessions (
            id, app_id, user_id, provider, state_hash, request_token, redirect_url, scopes,
            code_verifier_sealed, request_token_secret_sealed, expires_at
          ) values (
            ${id}, ${user.appId}, ${user.userId}, ${payload.provider}, ${hashState(state)}, ${start.requestToken},
            ${payload.redirectUrl}, ${scopes.join(" ")},
            ${start.usesPkce ? box.seal(codeVerifier) : null},
            ${start.requestTokenSecret === null ? null : box.seal(start.requestTokenSecret)},
            ${expiresAt}
          )
        `.pipe(Effect.orDie)
        return new ConnectSession({ id, authorizationUrl: start.authorizationUrl, expiresAt }, true)
      })

    const sessionColumns = sql.literal(
      "id, app_id, user_id, provider, redirect_url, scopes, code_verifier_sealed, request_token, " +
        "request_token_secret_sealed, expires_at, used_at"
    )

    /** Claims the session once; a second claim (replay or race) finds it used. */
    const claim = (session: SessionRow, outcome: string) =>
      sql<{ id: string }>`
        update connect_sessions set used_at = now(), outcome = ${outcome}
        where id = ${session.id} and used_at is null
        returning id
      `.pipe(Effect.orDie, Effect.map((rows) => rows.length === 1))

    const upsertConnection = (session: SessionRow, providerUserId: string, tokenSet: TokenSet) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ id: ConnectionId }>`
          insert into connections (
            id, app_id, user_id, provider, provider_user_id, status, scopes, token_expires_at,
            access_token_sealed, refresh_token_sealed, token_secret_sealed
          ) values (
            ${newId()}, ${session.appId}, ${session.userId}, ${session.provider}, ${providerUserId}, 'Active',
            ${tokenSet.scopes}, ${tokenSet.expiresAt}, ${box.seal(tokenSet.accessToken)},
            ${tokenSet.refreshToken === null ? null : box.seal(tokenSet.refreshToken)},
            ${tokenSet.tokenSecret === null ? null : box.seal(tokenSet.tokenSecret)}
          )
          on conflict (user_id, provider) where status <> 'Disconnected' do update set
            provider_user_id = excluded.provider_user_id,
            status = 'Active',
            scopes = excluded.scopes,
            token_expires_at = excluded.token_expires_at,
            access_token_sealed = excluded.access_token_sealed,
            refresh_token_sealed = excluded.refresh_token_sealed,
            token_secret_sealed = excluded.token_secret_sealed,
            updated_at = now()
          returning id
        `.pipe(Effect.orDie)
        return rows[0]!.id
      })

    /** Exchange, provider user id, connection: the part of a callback that talks to the provider. */
    const complete = (session: SessionRow, code: string) =>
      Effect.gen(function*() {
        const resolved = yield* access.resolve(session.appId, session.provider).pipe(
          Effect.mapError((e) => ({ code: "provider_not_configured", message: e.message }))
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
        }).pipe(withClient, Effect.mapError((e) => ({ code: "exchange_failed", message: e.message })))
        const providerUserId = yield* resolved.adapter.providerUserId({
          credentials: resolved.credentials,
          endpoints: resolved.endpoints,
          tokens: tokenSet
        }).pipe(withClient, Effect.mapError((e) => ({ code: "exchange_failed", message: e.message })))
        return yield* upsertConnection(session, providerUserId, tokenSet)
      })

    const finish = (
      session: SessionRow,
      input: { readonly code?: string | undefined; readonly error?: string | undefined }
    ) =>
      Effect.gen(function*() {
        const fail = (error: string) =>
          Effect.as(
            claim(session, error),
            redirectTo(session.redirectUrl, { success: "false", error, provider: session.provider })
          )
        if (session.usedAt !== null) {
          return redirectTo(session.redirectUrl, {
            success: "false",
            error: "session_already_used",
            provider: session.provider
          })
        }
        if (session.expiresAt.getTime() < Date.now()) return yield* fail("session_expired")
        if (input.error !== undefined) return yield* fail(safeErrorCode(input.error))
        if (input.code === undefined || input.code === "") return yield* fail("access_denied")
        // Claim before talking to the provider: a replayed callback must not exchange again.
        const claimed = yield* claim(session, "pending")
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
          yield* sql`update connect_sessions set outcome = ${result.left.code} where id = ${session.id}`.pipe(
            Effect.orDie
          )
          return redirectTo(session.redirectUrl, {
            success: "false",
            error: result.left.code,
            provider: session.provider
          })
        }
        yield* sql`update connect_sessions set outcome = 'connected' where id = ${session.id}`.pipe(Effect.orDie)
        // History is read in the background; the user comes back to the app at once.
        yield* syncQueue.backfill(result.right)
        return redirectTo(session.redirectUrl, {
          success: "true",
          provider: session.provider,
          connectionId: result.right
        })
      })

    const findBy = (column: "state_hash" | "request_token", value: string) =>
      sql<SessionRow>`select ${sessionColumns} from connect_sessions where ${sql(column)} = ${value}`.pipe(
        Effect.orDie,
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const noSession = (message: string): CallbackOutcome => ({ _tag: "NoSession", message })

    return {
      createSession,

      /** Endpoint 23: `code` and `state`, or the provider's `error`. */
      callbackOAuth2: (
        params: {
          readonly code?: string | undefined
          readonly state?: string | undefined
          readonly error?: string | undefined
        }
      ) =>
        Effect.gen(function*() {
          if (params.state === undefined || params.state === "") return noSession("The callback has no state")
          const session = yield* findBy("state_hash", hashState(params.state))
          if (Option.isNone(session)) return noSession("Unknown state: no connect session matches this callback")
          return yield* finish(session.value, { code: params.code, error: params.error })
        }),

      /** Endpoint 24: `oauth_token` (the request token) and `oauth_verifier`. */
      callbackOAuth1: (
        params: { readonly oauth_token?: string | undefined; readonly oauth_verifier?: string | undefined }
      ) =>
        Effect.gen(function*() {
          if (params.oauth_token === undefined || params.oauth_token === "") {
            return noSession("The callback has no oauth_token")
          }
          const session = yield* findBy("request_token", params.oauth_token)
          if (Option.isNone(session)) return noSession("Unknown oauth_token: no connect session matches this callback")
          return yield* finish(session.value, { code: params.oauth_verifier })
        }),

      /**
       * Endpoint 9: revoke at the provider (best effort: a failure is logged, never fatal), then
       * mark the connection Disconnected and drop its tokens. Its data stays.
       */
      disconnect: (userId: UserId, connectionId: string) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ id: ConnectionId; appId: AppId; provider: Provider }>`
            select id, app_id, provider from connections
            where id = ${connectionId} and user_id = ${userId} and status <> 'Disconnected'
          `.pipe(Effect.orDie)
          const connection = rows[0]
          if (connection === undefined) return yield* new NotFound({ message: `no connection with id ${connectionId}` })
          const revoked = yield* Effect.gen(function*() {
            const resolved = yield* access.resolve(connection.appId, connection.provider)
            const current = yield* tokens.fresh(connection.id).pipe(
              Effect.catchAll(() => tokens.stored(connection.id))
            )
            yield* resolved.adapter.revoke({
              credentials: resolved.credentials,
              endpoints: resolved.endpoints,
              tokens: current
            }).pipe(withClient)
          }).pipe(Effect.either)
          if (revoked._tag === "Left") {
            yield* Effect.logWarning("Provider revoke failed; disconnecting locally anyway").pipe(
              Effect.annotateLogs({
                connectionId: connection.id,
                provider: connection.provider,
                reason: String((revoked.left as { message?: string }).message ?? revoked.left)
              })
            )
          }
          yield* sql`
            update connections set
              status = 'Disconnected', disconnected_at = now(), updated_at = now(),
              access_token_sealed = null, refresh_token_sealed = null, token_secret_sealed = null
            where id = ${connection.id}
          `.pipe(Effect.orDie)
          yield* syncQueue.stop(connection.id)
        })
    } as const
  })
}) {}
