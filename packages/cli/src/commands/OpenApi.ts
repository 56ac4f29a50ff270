/**
 * `pulsebridge openapi`: print the OpenAPI 3.1 document of the API, derived from the contract.
 */
import * as Command from "@effect/cli/Command"
import * as OpenApi from "@effect/platform/OpenApi"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { printResult, reportFailure } from "../Output.js"
import { json } from "./Options.js"

export const openapi = Command.make(
  "openapi",
  { json },
  ({ json }) =>
    Effect.suspend(() => printResult(json, OpenApi.fromApi(Api), () => JSON.stringify(OpenApi.fromApi(Api), null, 2)))
      .pipe(reportFailure(json))
).pipe(Command.withDescription("Print the OpenAPI 3.1 document of the API as JSON"))
