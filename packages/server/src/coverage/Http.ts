/**
 * Handlers of the coverage group: the data coverage of the token's own user (another user's id is a 403,
 * as on every user route), from `DataCoverage`; a range that ends after the user's today is a 400.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { onlyServices } from "../platform/GroupContext.js"
import { DataCoverage } from "./DataCoverage.js"

const coverageGroup = HttpApiBuilder.group(Api, "coverage", (handlers) =>
  Effect.gen(function*() {
    const coverage = yield* DataCoverage
    return handlers.handle("coverage", ({ path, urlParams }) =>
      Effect.flatMap(requireSelf(path.userId), (user) =>
        coverage.range(user.userId, urlParams.from, urlParams.to).pipe(
          Effect.catchTag("RangeAfterToday", (e) =>
            Effect.fail(new BadRequest({ message: e.message })))
        )))
  })).pipe(Layer.provide(UserTokenAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const CoverageHttpLive = onlyServices([SqlClient.SqlClient, DataCoverage], coverageGroup)
