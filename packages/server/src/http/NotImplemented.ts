/**
 * The answer of an endpoint whose capability is not built yet: 501 with the JSON error body.
 */
import { HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"

export const notImplemented = (what: string) =>
  Effect.succeed(HttpServerResponse.unsafeJson({
    _tag: "NotImplemented",
    message: `${what} is not available yet`
  }, { status: 501 }))
