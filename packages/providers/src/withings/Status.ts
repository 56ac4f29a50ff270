/**
 * How Withings answers: every call, tokens and data alike, is answered HTTP 200 with a JSON envelope
 * `{status, body, error?}`, `status` 0 for success and any other value an error of one of the families of the
 * Response Status table (developer.withings.com/api-reference, section "Response Status"). This module owns the
 * envelope, the table, and the mapping of each family onto a `ProviderError` the server acts on:
 *
 * - Authentication failed (100..102, 200, 401): on a data call the access token is invalid or expired, `status`
 *   401 (the server refreshes and tries again); on a token call 401 is the code or refresh token no longer valid,
 *   `invalid_grant` (the server asks the user to connect again), and 100..102 or 200 the app's credentials refused
 *   (`invalid_client`: the operator's configuration, not the user's grant).
 * - Invalid params: 400 and `invalid_params`; on a token call an error naming the code or the refresh token is
 *   `invalid_grant` (Withings answers a spent code or refresh token with 503 "Invalid Params: invalid code" /
 *   "invalid refresh_token", as clients of the live API report: home-assistant/home-assistant.io#34285,
 *   jaroslawhartman/withings-sync#41).
 * - Unauthorized (214, 277, 2553, 2555): 403 and `insufficient_scope` when the call needed a scope the grant
 *   lacks (the table says only "you are not allowed to call this service"), `unauthorized` otherwise.
 * - Too many requests (601): 429 with a wait of 60 s (Withings sends no Retry-After; its documented limit is per
 *   minute).
 * - Not implemented (2554): 404. Timeout (522), Bad state (524) and "An error occurred" (every other code): 503,
 *   retried by the server.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InsufficientScope, ProviderError } from "../Adapter.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"

export type WithingsStatusFamily =
  | "success"
  | "authenticationFailed"
  | "invalidParams"
  | "unauthorized"
  | "notImplemented"
  | "timeout"
  | "badState"
  | "tooManyRequests"
  | "errorOccurred"

/** The Response Status table's ranges (both ends inclusive) that are not "An error occurred". */
const ranges: ReadonlyArray<readonly [number, number, WithingsStatusFamily]> = [
  [0, 0, "success"],
  [100, 102, "authenticationFailed"],
  [200, 200, "authenticationFailed"],
  [201, 213, "invalidParams"],
  [214, 214, "unauthorized"],
  [216, 218, "invalidParams"],
  [220, 221, "invalidParams"],
  [223, 223, "invalidParams"],
  [225, 225, "invalidParams"],
  [227, 230, "invalidParams"],
  [234, 236, "invalidParams"],
  [238, 238, "invalidParams"],
  [240, 252, "invalidParams"],
  [254, 254, "invalidParams"],
  [260, 267, "invalidParams"],
  [271, 272, "invalidParams"],
  [275, 276, "invalidParams"],
  [277, 277, "unauthorized"],
  [283, 288, "invalidParams"],
  [290, 290, "invalidParams"],
  [293, 295, "invalidParams"],
  [297, 297, "invalidParams"],
  [300, 304, "invalidParams"],
  [321, 321, "invalidParams"],
  [323, 353, "invalidParams"],
  [380, 382, "invalidParams"],
  [400, 400, "invalidParams"],
  [401, 401, "authenticationFailed"],
  [501, 511, "invalidParams"],
  [522, 522, "timeout"],
  [523, 523, "invalidParams"],
  [524, 524, "badState"],
  [532, 532, "invalidParams"],
  [601, 601, "tooManyRequests"],
  [2553, 2553, "unauthorized"],
  [2554, 2554, "notImplemented"],
  [2555, 2555, "unauthorized"],
  [3017, 3019, "invalidParams"]
]

/** The family of a Withings status; a code the table does not list is "An error occurred", as most are. */
export const withingsStatusFamily = (status: number): WithingsStatusFamily =>
  ranges.find(([low, high]) => status >= low && status <= high)?.[2] ?? "errorOccurred"

/** Withings states no wait for 601; its limit is counted per minute. */
export const withingsRateLimitWaitSeconds = 60

/** The envelope of every answer. */
export const WithingsEnvelope = Schema.Struct({
  status: Schema.Int,
  body: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.NullOr(Schema.String))
})
export type WithingsEnvelope = typeof WithingsEnvelope.Type

/** What a call is, for the reading of its errors: a token call, or a data call needing `scope`. */
export type CallKind =
  | { readonly _tag: "token" }
  | { readonly _tag: "data"; readonly scope?: string | undefined }

const maxErrorLength = 200

/** The `ProviderError` of a non-zero status (the error text is scrubbed of the call's secrets). */
export const withingsStatusError = (ctx: CallContext, envelope: WithingsEnvelope, kind: CallKind): ProviderError => {
  const text = envelope.error === undefined || envelope.error === null
    ? undefined
    : ProviderHttp.scrub(envelope.error, ctx.secrets).slice(0, maxErrorLength)
  const family = withingsStatusFamily(envelope.status)
  const head = `${ctx.provider} ${ctx.operation} failed (status ${envelope.status}, ${family})`
  const message = text === undefined ? head : `${head}: ${text}`
  const error = (fields: { status: number; code: string; retryAfterSeconds?: number; missingScopes?: Array<string> }) =>
    new ProviderError({ provider: ctx.provider, operation: ctx.operation, message, ...fields })
  switch (family) {
    case "authenticationFailed":
      // On a token call 401 is the grant's token refused; the other codes of the family are the app's credentials.
      if (kind._tag === "token") {
        return envelope.status === 401
          ? error({ status: 400, code: "invalid_grant" })
          : error({ status: 401, code: "invalid_client" })
      }
      return error({ status: 401, code: "invalid_token" })
    case "invalidParams":
      return kind._tag === "token" && text !== undefined && /\b(code|refresh_token)\b/i.test(text)
        ? error({ status: 400, code: "invalid_grant" })
        : error({ status: 400, code: "invalid_params" })
    case "unauthorized":
      return kind._tag === "data" && kind.scope !== undefined
        ? error({ status: 403, code: InsufficientScope, missingScopes: [kind.scope] })
        : error({ status: 403, code: "unauthorized" })
    case "tooManyRequests":
      return error({ status: 429, code: "too_many_requests", retryAfterSeconds: withingsRateLimitWaitSeconds })
    case "notImplemented":
      return error({ status: 404, code: "not_implemented" })
    case "timeout":
      return error({ status: 503, code: "timeout" })
    case "badState":
      return error({ status: 503, code: "bad_state" })
    default:
      return error({ status: 503, code: "error_occurred" })
  }
}

/** Names the fields of a body that failed its schema, never their values (a token body holds live tokens). */
const malformedBody = (ctx: CallContext, error: ParseResult.ParseError) => {
  const fields = Array.from(
    new Set(
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
        issue.path.length === 0 ? "body" : `body.${issue.path.join(".")}`
      )
    )
  ).join(", ")
  return new ProviderError({
    provider: ctx.provider,
    operation: ctx.operation,
    message: `${ctx.provider} ${ctx.operation}: malformed response (invalid: ${fields})`
  })
}

/** Reads an envelope: its body with `schema` when the status is 0, else the status's error. */
export const readEnvelope = <A, I>(
  ctx: CallContext,
  envelope: WithingsEnvelope,
  schema: Schema.Schema<A, I>,
  kind: CallKind
) => {
  if (envelope.status !== 0) return Effect.fail(withingsStatusError(ctx, envelope, kind))
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(envelope.body ?? {})
  return Either.isLeft(decoded) ? Effect.fail(malformedBody(ctx, decoded.left)) : Effect.succeed(decoded.right)
}

/**
 * POSTs a form to a Withings service (`url`, with `action` in the form) with the access token when given, and
 * reads the answer's body with `schema`. Withings' reference shows every service as a form POST with the token as
 * `Authorization: Bearer`.
 */
export const withingsPost = <A, I>(
  ctx: CallContext,
  options: {
    readonly url: string
    readonly form: Readonly<Record<string, string>>
    readonly accessToken?: Parameters<typeof HttpClientRequest.bearerToken>[1] | undefined
    readonly schema: Schema.Schema<A, I>
    readonly kind: CallKind
  }
) => {
  const base = HttpClientRequest.post(options.url).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyUrlParams(options.form)
  )
  const request = options.accessToken === undefined ? base : HttpClientRequest.bearerToken(base, options.accessToken)
  return ProviderHttp.send(ctx, request, ProviderHttp.readJson(ctx, WithingsEnvelope)).pipe(
    Effect.flatMap((envelope) => readEnvelope(ctx, envelope, options.schema, options.kind))
  )
}

/** The call context of a Withings call: Withings' errors are in the envelope, never in an error body of its own. */
export const withingsContext = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Withings",
  operation,
  readError: ProviderHttp.oauthErrorReader,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})
