/**
 * Handlers of the coverage group: the data coverage of the token's own user (another user's id is a 403,
 * as on every user route), from `DataCoverage`; a range that ends after the user's today is a 400.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, BadRequest } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { DataCoverage } from "./DataCoverage.js"

export const CoverageHttpLive = HttpApiBuilder.group(Api, "coverage", (handlers) =>
  Effect.gen(function*() {
    const coverage = yield* DataCoverage
    return handlers.handle("coverage", ({ path, urlParams }) =>
      Effect.flatMap(requireSelf(path.userId), (user) =>
        coverage.range(user.userId, urlParams.from, urlParams.to).pipe(
          Effect.catchTag("RangeAfterToday", (e) =>
            Effect.fail(new BadRequest({ message: e.message })))
        )))
  })).pipe(Layer.provide(UserTokenAuthLive))
