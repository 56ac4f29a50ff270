/** The operators' group: the audit log of every change made through the portal or the CLI, and the operators. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AppId, BadRequest, Timestamp } from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { PageCursor, PageLimit } from "./Paging.js"
import { Operator, OperatorId, PortalAuth } from "./Session.js"

export class AuditEvent extends Schema.Class<AuditEvent>("AuditEvent")({
  id: Schema.String,
  at: Timestamp,
  operatorId: Schema.NullOr(OperatorId),
  operatorEmail: Schema.NullOr(Schema.String).annotations({ description: "null for the CLI or an anonymous attempt" }),
  action: Schema.String.annotations({ description: "e.g. `apiKey.create`, `login.failed`, `user.erase`" }),
  targetType: Schema.NullOr(Schema.String),
  targetId: Schema.NullOr(Schema.String),
  appId: Schema.NullOr(AppId),
  detail: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "What changed; never a secret or a password"
  }),
  address: Schema.NullOr(Schema.String)
}) {}

export class AuditPage extends Schema.Class<AuditPage>("AuditPage")({
  data: Schema.Array(AuditEvent),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

export class OperatorsGroup extends HttpApiGroup.make("portalOperators")
  .add(
    HttpApiEndpoint.get("audit", "/portal/api/audit")
      .setUrlParams(Schema.Struct({ cursor: Schema.optional(PageCursor), limit: Schema.optional(PageLimit) }))
      .addSuccess(AuditPage)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("operators", "/portal/api/operators").addSuccess(
      Schema.Struct({ data: Schema.Array(Operator) })
    )
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
