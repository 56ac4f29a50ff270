/**
 * `traced(name)`: `Effect.fn(name)` whose span is built only while the fiber's tracer is enabled. Where no exporter
 * is configured the request middleware turns the tracer off for each request (`http/RequestFiber.ts`), and a span
 * nobody reads would cost a call about thirty steps of the fiber's run loop (the span, its parent in the context,
 * the stack captured for it); the function then runs as `Effect.fnUntraced`, in four.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

export const traced: (name: string) => Effect.fn.Gen & Effect.fn.NonGen = (name) =>
  ((body: any, ...pipeables: Array<any>) => {
    const spanned = (Effect.fn(name) as any)(body, ...pipeables)
    const plain = (Effect.fnUntraced as any)(body, ...pipeables)
    return function(this: unknown, ...args: Array<unknown>) {
      return Effect.withFiberRuntime((fiber) =>
        fiber.getFiberRef(FiberRef.currentTracerEnabled) ? spanned.apply(this, args) : plain.apply(this, args)
      )
    }
  }) as any
