/**
 * What the request middleware sets for the rest of a request, set on the request's own fiber and left there.
 *
 * The platform serves each request on a fiber of its own, which ends once the answer is written; so a value the
 * middleware gives the request (a service in its context, a log annotation, the tracer switched off) needs no
 * restoring afterwards. `Effect.provideService` and `Effect.annotateLogs` restore it, at about twenty-five steps of
 * the fiber's run loop each, on every request; these take one or two.
 *
 * Only for the request's whole remainder, from the request middleware: inside a handler the scoped forms are right.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Tracer from "effect/Tracer"

/** `service` as `tag` for the rest of the request. */
export const provideForRequest = <I, S>(tag: Context.Tag<I, S>, service: NoInfer<S>): Effect.Effect<void> =>
  FiberRef.update(FiberRef.currentContext, Context.add(tag, service))

/** Log annotations for the rest of the request. */
export const annotateRequestLogs = (annotations: Readonly<Record<string, unknown>>): Effect.Effect<void> =>
  FiberRef.update(FiberRef.currentLogAnnotations, (current) => {
    let next = current
    for (const key in annotations) next = HashMap.set(next, key, annotations[key])
    return next
  })

/**
 * The rest of the request without spans: the tracer off (no span is built, timed and dropped) and `span` as the
 * parent the router writes the route's name on.
 */
export const untracedRequest = (span: Tracer.Span): Effect.Effect<void> =>
  Effect.zipRight(
    FiberRef.set(FiberRef.currentTracerEnabled, false),
    provideForRequest(Tracer.ParentSpan, span)
  )
