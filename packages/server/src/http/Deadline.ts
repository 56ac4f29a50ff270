/**
 * A deadline for every request: a request not answered in time gets 503 `ServiceUnavailable` (JSON, with
 * `Retry-After`) and its work is interrupted. Uploads (`multipart/*`, the meal scan) get a longer deadline, as
 * receiving the body is part of the request.
 *
 * One plain timer per request, started by the request middleware (`Middleware.ts`) on the request's own fiber: when
 * it fires it interrupts that fiber, whose handler (served interruptibly by the router) stops and runs its
 * finalizers; the platform then answers the interruption, and the middleware's pre-response handler, seeing the
 * deadline passed, makes that answer the 503. The answer's pre-response handler stops the timer, so a response
 * that streams its body is not cut by it. No second fiber races the request, as `Effect.timeoutTo` would make.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"

export interface DeadlineOptions {
  /** Milliseconds for any request (`REQUEST_TIMEOUT_MS`). */
  readonly requestMs: number
  /** Milliseconds for a `multipart/*` upload (`UPLOAD_TIMEOUT_MS`). */
  readonly uploadMs: number
}

const isUpload = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").trimStart().toLowerCase().startsWith("multipart/")

/** The milliseconds `request` may take. */
export const deadlineMsOf = (options: DeadlineOptions, request: HttpServerRequest.HttpServerRequest) =>
  isUpload(request) ? options.uploadMs : options.requestMs

/** The answer of a request over its deadline. */
export const overDeadline = (ms: number) =>
  HttpServerResponse.unsafeJson(
    { _tag: "ServiceUnavailable", message: `The request was not answered within ${ms} ms` },
    { status: 503 }
  ).pipe(HttpServerResponse.setHeader("retry-after", "1"))

/** The interrupter a deadline names, told apart from a client that went away. */
const deadlineFiberId = FiberId.make(-1, 0)

/** A running deadline: whether it passed, and how to stop it once the answer is ready. */
export interface Deadline {
  readonly ms: number
  readonly passed: () => boolean
  readonly stop: () => void
}

/** Starts the deadline of the request served by `fiber`: after `ms` the fiber is interrupted. */
export const startDeadline = (fiber: Fiber.RuntimeFiber<unknown, unknown>, ms: number): Deadline => {
  let passed = false
  const timer = setTimeout(() => {
    passed = true
    fiber.unsafeInterruptAsFork(deadlineFiberId)
  }, ms)
  return {
    ms,
    passed: () => passed,
    stop: () => clearTimeout(timer)
  }
}
