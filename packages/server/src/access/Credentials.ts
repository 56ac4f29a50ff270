/**
 * The credential a request presents, read and classified once per request: `Authorization: Bearer`
 * first, the legacy header of each kind second. It travels in the request's context (`Caller`), with
 * what the rate limiter's statement already found for it and the outcome of each check, so that a
 * request's credential is hashed once, looked up once and checked once however many declared schemes,
 * routes or middlewares ask for it.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { Unauthorized } from "@pulsebridge/domain"
import { sessionCookieName } from "@pulsebridge/portal/api"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { ApiKeyPrefix, hashSecret, UserTokenPrefix } from "./CredentialHash.js"

/** The presented credential: the bearer token, else the legacy header's value. */
export const presentedCredential = (
  headers: Readonly<Record<string, string | undefined>>,
  legacyHeader: string
): string | undefined => {
  const authorization = headers["authorization"]
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match !== null) return match[1]
  }
  const legacy = headers[legacyHeader]?.trim()
  return legacy === undefined || legacy === "" ? undefined : legacy
}

/** The cookie that carries an operator's portal session: its name is part of the portal's API. */
export const portalSessionCookie = sessionCookieName

/** The two kinds of credential the API takes, told apart by their prefixes. */
export type CredentialKind = "key" | "token"

/** What a lookup found for a credential: its row as JSON, or null when it is unknown, revoked or dead. */
export interface Found {
  readonly kind: CredentialKind
  readonly hash: string
  readonly row: unknown
}

/** One request's credential, and what has been learnt about it so far. */
export class PresentedCredentials {
  /** The secret an API-key check reads (`X-App-Api-Key` as the legacy header). */
  readonly forApiKey: string | undefined
  /** The secret a user-token check reads (`X-User-Token` as the legacy header). */
  readonly forUserToken: string | undefined
  private readonly hashes = new Map<string, string>()
  private found: Found | undefined = undefined
  private readonly checks = new Map<CredentialKind, Exit.Exit<unknown, Unauthorized>>()

  constructor(readonly headers: Readonly<Record<string, string | undefined>>) {
    this.forApiKey = presentedCredential(headers, "x-app-api-key")
    this.forUserToken = presentedCredential(headers, "x-user-token")
  }

  /** The credential that names the request's rate-limit bucket: an API key's first, else a user token's. */
  get presented(): string | undefined {
    return this.forApiKey ?? this.forUserToken
  }

  /** The kind of `secret` by its prefix, if it has one of the two. */
  static kindOf(secret: string | undefined): CredentialKind | undefined {
    if (secret?.startsWith(ApiKeyPrefix) === true) return "key"
    if (secret?.startsWith(UserTokenPrefix) === true) return "token"
    return undefined
  }

  /**
   * The rate-limit bucket key of a credential: its kind and the start of its SHA-256 (base64url), from the hash
   * this request computes once (`hashKey` of the same secret gives the same key).
   */
  bucketKeyOf(kind: CredentialKind, secret: string): string {
    return `${kind}:${Buffer.from(this.hashOf(secret), "hex").toString("base64url").slice(0, 32)}`
  }

  /** The SHA-256 of `secret` (hex), computed once per request. */
  hashOf(secret: string): string {
    let hash = this.hashes.get(secret)
    if (hash === undefined) {
      hash = hashSecret(secret)
      this.hashes.set(secret, hash)
    }
    return hash
  }

  /** Records what a statement that looked the credential up found (the rate limiter's take). */
  setFound(found: Found): void {
    this.found = found
  }

  /** What was found for this secret of the request, if it was looked up already. */
  foundFor(kind: CredentialKind, secret: string): Option.Option<unknown> {
    const found = this.found
    return found !== undefined && found.kind === kind && found.hash === this.hashOf(secret)
      ? Option.some(found.row)
      : Option.none()
  }

  /** Runs the check of `kind` once for this request; later calls get its outcome. */
  checkOnce<A>(kind: CredentialKind, check: Effect.Effect<A, Unauthorized>): Effect.Effect<A, Unauthorized> {
    return Effect.suspend(() => {
      const done = this.checks.get(kind) as Exit.Exit<A, Unauthorized> | undefined
      if (done !== undefined) return done
      return Effect.flatMap(Effect.exit(check), (exit) => {
        this.checks.set(kind, exit)
        return exit
      })
    })
  }
}

/** The request's presented credential, provided for each request by the rate limiter's middleware (`RateLimiter.middleware`). */
export class Caller extends Context.Tag("@pulsebridge/server/Caller")<Caller, PresentedCredentials>() {}

/**
 * The request's `Caller`: the one the access middleware provided, or (where a route is served without it, as in
 * a test of one handler) one read from the request now.
 */
export const currentCaller: Effect.Effect<PresentedCredentials, never, HttpServerRequest.HttpServerRequest> = Effect
  .withFiberRuntime((fiber) => {
    const provided = Context.getOption(fiber.currentContext, Caller)
    return Effect.succeed(
      Option.isSome(provided)
        ? provided.value
        : new PresentedCredentials(Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest).headers)
    )
  })
