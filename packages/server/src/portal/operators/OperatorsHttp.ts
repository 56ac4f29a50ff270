/**
 * The portal's operators group: the audit log (newest first, keyset paging) and the operators.
 */
import { HttpApiBuilder } from "@effect/platform"
import { BadRequest } from "@pulsebridge/domain"
import { AuditPage } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import { ServedApi } from "../ServedApi.js"
import { Audit } from "./Audit.js"
import { Operators } from "./Operators.js"
import { toOperator } from "./SessionHttp.js"

export const OperatorsHttpLive = HttpApiBuilder.group(
  ServedApi,
  "portalOperators",
  (handlers) =>
    Effect.gen(function*() {
      const audit = yield* Audit
      const operators = yield* Operators
      return handlers
        .handle("audit", ({ urlParams }) =>
          audit.page(urlParams.cursor, urlParams.limit ?? 50).pipe(
            Effect.map((page) => new AuditPage(page)),
            Effect.catchTag("BadCursor", (error) => Effect.fail(new BadRequest({ message: error.message })))
          ))
        .handle("operators", () => Effect.map(operators.list, (rows) => ({ data: rows.map(toOperator) })))
    })
)
