/**
 * The request as a simulator's routes see it (`SimRequest`: path relative to B, query, headers,
 * the body read once, the form), the `handle` adapter that turns a plain function of it into a
 * route, and `ProviderStyle`, how a provider words the errors the shared app produces.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export interface SimRequestShape {
  readonly method: string
  /** Path relative to B, without the query. */
  readonly path: string
  /** The query as received, without `?`. */
  readonly rawQuery: string
  readonly query: URLSearchParams
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  /** The form body when the request has one, else empty. */
  readonly form: URLSearchParams
  /** Adds who the call was for to its call-log record. */
  readonly identify: (who: { readonly clientId?: string | undefined; readonly userId?: string | undefined }) => void
}

export class SimRequest extends Context.Tag("@pulsebridge/sandbox/core/SimRequest")<
  SimRequest,
  SimRequestShape
>() {}

export type RouteHandler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  SimRequest | HttpRouter.RouteContext
>

/** A route handler from a function of the request and path params. */
export const handle = (
  f: (
    req: SimRequestShape,
    params: Readonly<Record<string, string | undefined>>
  ) => HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
): RouteHandler =>
  Effect.gen(function*() {
    const req = yield* SimRequest
    const params = yield* HttpRouter.params
    const out = f(req, params)
    return Effect.isEffect(out) ? yield* out : out
  })

/** How a provider words its errors. */
export interface ProviderStyle {
  readonly error: (status: number, code: string, message: string) => HttpServerResponse.HttpServerResponse
  /** What an expired access token gets (the `expiredToken` fault). */
  readonly expiredToken: (req: SimRequestShape) => HttpServerResponse.HttpServerResponse
  readonly rateLimited: (retryAfterSeconds: number) => HttpServerResponse.HttpServerResponse
}
