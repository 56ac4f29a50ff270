/**
 * An API group built on only the services it names. `HttpApiBuilder.group` keeps the context its layer was built in
 * and merges it into the context of every request of the group's routes; built under the whole application, that
 * context holds every service the server runs with (66), and each request copied them all. Built here, it holds the
 * services `tags` name and what the group's own layers add (its security middleware). The group layer's type lists
 * the services its handlers and its layers take, and `tags` must name them all: a service left out fails the type
 * check, not a request. The one service the type leaves out, the API's router the group adds its routes to, is
 * always kept.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const onlyServices = <const Tags extends ReadonlyArray<Context.Tag<any, any>>, ROut, E>(
  tags: Tags,
  layer: Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>>
): Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>> => {
  const kept: ReadonlyArray<Context.Tag<any, any>> = [HttpApiBuilder.Router, ...tags]
  return Layer.scopedContext(
    Effect.gen(function*() {
      const memoMap = yield* Layer.CurrentMemoMap
      const scope = yield* Effect.scope
      // The application's memo map: a layer other groups share (an authentication service) is still built once.
      // The build's context is replaced by the services named, not merged with them.
      return yield* Effect.mapInputContext(
        Layer.buildWithMemoMap(layer, memoMap, scope),
        (context: Context.Context<Context.Tag.Identifier<Tags[number]>>) =>
          Context.pick(...kept)(context as Context.Context<any>) as Context.Context<
            Context.Tag.Identifier<Tags[number]>
          >
      )
    })
  )
}
