/**
 * The JSON error body the transport answers with when it refuses a request before the API sees it
 * (`{ _tag, message }`, the shape of the contract's errors), so that clients read one shape.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

export const errorResponse = (status: number, tag: string, message: string, extra?: Record<string, unknown>) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message, ...extra }, { status })
