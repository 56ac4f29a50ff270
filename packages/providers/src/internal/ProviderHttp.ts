/**
 * How every provider call is sent and how it fails: the 10 s budget, rate-limit hints, the
 * provider's error body, schema-checked replies, and the scrubbing of secrets out of anything a
 * provider echoes back into an error message.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { toWellFormed } from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ExchangeInput, StartInput, TokenInput } from "../Adapter.js"
import { ProviderError } from "../Adapter.js"

/** What a provider's error body says, once decoded. */
export interface ErrorDetails {
  readonly code?: string | undefined
  readonly description?: string | undefined
}

/** Reads a provider's error body; `None` when the body is not in the provider's error shape. */
export type ErrorReader = (body: unknown) => Option.Option<ErrorDetails>

/** One provider call: who, what, how to read its errors, and what must never be echoed. */
export interface CallContext {
  readonly provider: string
  readonly operation: string
  readonly readError: ErrorReader
  /** The secrets of the call's input; providers quote them back (Fitbit: "Access token expired: <token>"). */
  readonly secrets: ReadonlyArray<string | Redacted.Redacted | null | undefined>
}

export const callTimeout = "10 seconds"

/** Builds an `ErrorReader` from the schema of a provider's error body. */
export const errorReader = <A, I>(schema: Schema.Schema<A, I>, toDetails: (body: A) => ErrorDetails): ErrorReader => {
  const decode = Schema.decodeUnknownOption(schema)
  return (body) => Option.map(decode(body), toDetails)
}

/** The RFC 6749 error body (WHOOP's Hydra server, Dexcom's token endpoint). */
export const oauthErrorReader: ErrorReader = errorReader(
  Schema.Struct({ error: Schema.String, error_description: Schema.optional(Schema.String) }),
  (body) => ({ code: body.error, description: body.error_description })
)

export type SecretsSource = StartInput | ExchangeInput | TokenInput

/** Every secret an input carries, the client secret included: it keys every call, one way or another. */
export const secretsOf = (input: SecretsSource): CallContext["secrets"] => {
  const client = input.credentials.clientSecret
  if ("tokens" in input) {
    return [client, input.tokens.accessToken, input.tokens.refreshToken, input.tokens.tokenSecret]
  }
  if ("code" in input) return [client, input.code, input.codeVerifier, input.requestTokenSecret]
  return [client, input.codeVerifier]
}

const redactedText = "[redacted]"

/** Removes every secret of the call from text a provider produced, raw or percent-encoded. */
export const scrub = (text: string, secrets: CallContext["secrets"]): string => {
  const values = secrets
    .flatMap((secret) => {
      if (secret === null || secret === undefined) return []
      const value = Redacted.isRedacted(secret) ? Redacted.value(secret) : secret
      return [value, encodeComponent(value)]
    })
    // Short values (e.g. "1") would shred ordinary words without protecting anything.
    .filter((value) => value.length >= 4)
    // Longest first, so a secret that contains another is removed whole.
    .sort((a, b) => b.length - a.length)
  return values.reduce((out, value) => out.split(value).join(redactedText), text)
}

const maxDescriptionLength = 300

const fail = (
  ctx: CallContext,
  message: string,
  extra: Omit<ConstructorParameters<typeof ProviderError>[0], "provider" | "operation" | "message"> = {}
) => new ProviderError({ provider: ctx.provider, operation: ctx.operation, message, ...extra })

/**
 * Seconds until a rate limit lifts. `Retry-After` may be seconds or an HTTP date; the
 * `*-Reset` headers are seconds until reset, though some servers send an epoch instead.
 */
const retryAfterSeconds = (headers: Headers.Headers, nowMillis: number): number | undefined => {
  for (const name of ["retry-after", "fitbit-rate-limit-reset", "x-ratelimit-reset"]) {
    const value = Option.getOrUndefined(Headers.get(headers, name))?.trim()
    if (value === undefined || value === "") continue
    if (/^\d+(\.\d+)?$/.test(value)) {
      const n = Number(value)
      // No reset window is a billion seconds long: such a value is a Unix time.
      return n > 1e9 ? Math.max(0, Math.ceil(n - nowMillis / 1000)) : Math.ceil(n)
    }
    const date = Date.parse(value)
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - nowMillis) / 1000))
  }
  return undefined
}

const statusError = (ctx: CallContext, response: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function*() {
    const body = yield* Effect.option(response.json)
    const details = Option.getOrElse(Option.flatMap(body, ctx.readError), (): ErrorDetails => ({}))
    const description = details.description === undefined
      ? undefined
      : scrub(details.description, ctx.secrets).slice(0, maxDescriptionLength)
    const status = response.status
    const retryAfter = status === 429 ? retryAfterSeconds(response.headers, yield* Clock.currentTimeMillis) : undefined
    const what = status === 429 ? "rate limited" : "failed"
    const head = `${ctx.provider} ${ctx.operation} ${what} (HTTP ${status}${
      details.code === undefined ? "" : ` ${scrub(details.code, ctx.secrets)}`
    })`
    const tail = retryAfter === undefined ? "" : `, retry after ${retryAfter} s`
    return yield* fail(ctx, `${head}${description === undefined ? "" : `: ${description}`}${tail}`, {
      status,
      code: details.code,
      retryAfterSeconds: retryAfter
    })
  })

const requestError = (ctx: CallContext, error: HttpClientError.HttpClientError) =>
  // The error itself holds the request (headers, form body with secrets): keep only its cause.
  fail(ctx, `${ctx.provider} ${ctx.operation} failed: ${error.reason} error`, { cause: error.cause })

/**
 * Sends `request` and reads a 2xx reply with `read`; everything else becomes a `ProviderError`.
 * The 10 s budget covers reading the body too, since a stalled body is as bad as a stalled connect.
 */
export const send = <A>(
  ctx: CallContext,
  request: HttpClientRequest.HttpClientRequest,
  read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, ProviderError>
): Effect.Effect<A, ProviderError, HttpClient.HttpClient> =>
  HttpClient.execute(request).pipe(
    Effect.mapError((error) => requestError(ctx, error)),
    Effect.flatMap((response) =>
      response.status >= 200 && response.status < 300 ? read(response) : statusError(ctx, response)
    ),
    Effect.timeoutFail({
      duration: callTimeout,
      onTimeout: () => fail(ctx, `${ctx.provider} ${ctx.operation} timed out after ${callTimeout}`)
    })
  )

/**
 * Names the fields that failed to decode but never their values: a token response that fails
 * its schema still carries live tokens.
 */
const malformed = (ctx: CallContext, error: ParseResult.ParseError | HttpClientError.ResponseError) => {
  const detail = ParseResult.isParseError(error)
    ? `invalid: ${
      Array.from(
        new Set(
          ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
            issue.path.length === 0 ? "body" : issue.path.join(".")
          )
        )
      ).join(", ")
    }`
    : "unreadable body"
  return fail(ctx, `${ctx.provider} ${ctx.operation}: malformed response (${detail})`)
}

/** All issues, so that a malformed reply names every field that is wrong. */
const parseOptions = { errors: "all" } as const

/** Reads a JSON reply with `schema`. */
export const readJson = <A, I>(ctx: CallContext, schema: Schema.Schema<A, I>) => {
  const decode = HttpClientResponse.schemaBodyJson(schema, parseOptions)
  return (response: HttpClientResponse.HttpClientResponse): Effect.Effect<A, ProviderError> =>
    Effect.mapError(decode(response), (error) => malformed(ctx, error))
}

/** Reads a form-encoded reply (OAuth 1.0a token legs) with `schema`. */
export const readForm = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(
  ctx: CallContext,
  schema: Schema.Schema<A, I>
) => {
  const decode = HttpClientResponse.schemaBodyUrlParams(schema, parseOptions)
  return (response: HttpClientResponse.HttpClientResponse): Effect.Effect<A, ProviderError> =>
    Effect.mapError(decode(response), (error) => malformed(ctx, error))
}

/** Accepts any 2xx reply and ignores its body (revocations answer 200, 204 or `{}`). */
export const readNothing = (_response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> => Effect.void

/** A failure decided before any call is made (missing token, unsupported operation). */
export const refuse = (ctx: CallContext, message: string, code?: string) =>
  Effect.fail(fail(ctx, `${ctx.provider} ${ctx.operation}: ${message}`, { code }))

/**
 * `base?k=v&...`, encoding with `encodeURIComponent` so that spaces in `scope` become `%20`:
 * `URLSearchParams` writes `+`, which not every authorization server reads as a space.
 */
export const withQuery = (base: string, params: ReadonlyArray<readonly [string, string]>): string =>
  `${base}?${params.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join("&")}`

/**
 * `encodeURIComponent` that cannot throw: a lone surrogate (refused by the contract, but a value may
 * come from elsewhere) is written as U+FFFD instead of raising a `URIError`.
 */
export const encodeComponent = (value: string): string => encodeURIComponent(toWellFormed(value))
