/**
 * A deadline for every request: a request not answered in time gets 503 `ServiceUnavailable` (JSON, with
 * `Retry-After`) and its work is interrupted. Uploads (`multipart/*`, the meal scan) get a longer deadline, as
 * receiving the body is part of the request.
 */
import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

export interface DeadlineOptions {
  /** Milliseconds for any request (`REQUEST_TIMEOUT_MS`). */
  readonly requestMs: number
  /** Milliseconds for a `multipart/*` upload (`UPLOAD_TIMEOUT_MS`). */
  readonly uploadMs: number
}

const isUpload = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").trimStart().toLowerCase().startsWith("multipart/")

const overDeadline = (ms: number) =>
  HttpServerResponse.unsafeJson(
    { _tag: "ServiceUnavailable", message: `The request was not answered within ${ms} ms` },
    { status: 503 }
  ).pipe(HttpServerResponse.setHeader("retry-after", "1"))

/**
 * `app` on a fiber of its own, watched by a plain timer: what `Effect.timeoutTo` does with one fiber fewer (it races
 * a second fiber sleeping on the clock), which every request pays for. Over the deadline the app's fiber is
 * interrupted (and awaited) before the 503 is answered; an answer in time brings the fiber's state back (its
 * pre-response handlers among it); an interrupted request interrupts the app's fiber.
 */
const within = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  ms: number
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.fork(restore(app)), (fiber) =>
      Effect.flatten(
        restore(Effect.async<Effect.Effect<HttpServerResponse.HttpServerResponse, E>>((resume) => {
          // Whichever comes first decides: the answer, or the deadline.
          let decided = false
          const decide = (next: Effect.Effect<HttpServerResponse.HttpServerResponse, E>) => {
            if (decided) return
            decided = true
            resume(Effect.succeed(next))
          }
          const timer = setTimeout(() => decide(Effect.as(Fiber.interrupt(fiber), overDeadline(ms))), ms)
          fiber.addObserver((exit) => {
            clearTimeout(timer)
            decide(Effect.zipRight(Fiber.inheritAll(fiber), exit))
          })
          return Effect.zipRight(Effect.sync(() => clearTimeout(timer)), Fiber.interrupt(fiber))
        }))
      ))
  )

export const withDeadline = (options: DeadlineOptions) =>
  HttpMiddleware.make((app) =>
    Effect.flatMap(
      HttpServerRequest.HttpServerRequest,
      (request) => within(app, isUpload(request) ? options.uploadMs : options.requestMs)
    )
  )
