/**
 * A deadline for every request: a request not answered in time gets 503 `ServiceUnavailable` (JSON, with
 * `Retry-After`) and its work is interrupted. Uploads (`multipart/*`, the meal scan) get a longer deadline, as
 * receiving the body is part of the request.
 */
import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"

export interface DeadlineOptions {
  /** Milliseconds for any request (`REQUEST_TIMEOUT_MS`, default 30 s). */
  readonly requestMs: number
  /** Milliseconds for a `multipart/*` upload (`UPLOAD_TIMEOUT_MS`, default 120 s). */
  readonly uploadMs: number
}

export const defaultDeadlines: DeadlineOptions = { requestMs: 30_000, uploadMs: 120_000 }

const isUpload = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").trimStart().toLowerCase().startsWith("multipart/")

export const withDeadline = (options: DeadlineOptions) =>
  HttpMiddleware.make((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const ms = isUpload(request) ? options.uploadMs : options.requestMs
      return Effect.timeoutTo(app, {
        duration: ms,
        onSuccess: (response) => response,
        onTimeout: () =>
          HttpServerResponse.unsafeJson(
            { _tag: "ServiceUnavailable", message: `The request was not answered within ${ms} ms` },
            { status: 503 }
          ).pipe(HttpServerResponse.setHeader("retry-after", "1"))
      })
    })
  )
