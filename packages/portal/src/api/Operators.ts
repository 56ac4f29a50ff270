/**
 * The operators' group: the audit log of every change made through the portal or the CLI, and the operators,
 * which an admin creates, gives a role, disables, enables again, and whose password or second factor it resets.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { AppId, BadRequest, Conflict, NotFound, Timestamp } from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { PageCursor, PageLimit } from "./Paging.js"
import { Operator, OperatorEmail, OperatorId, OperatorRole, PortalAuth } from "./Session.js"

/**
 * Who made a change: an operator in the portal, the CLI (run by an account of the system), an app's API key, or
 * nobody known (a failed login or setup).
 */
export const AuditActorType = Schema.Literal("operator", "cli", "apiKey", "anonymous")
export type AuditActorType = typeof AuditActorType.Type

/** A name to show for an id, and the portal page it links to (null where there is none). */
export class AuditName extends Schema.Class<AuditName>("AuditName")({
  label: Schema.String,
  href: Schema.NullOr(Schema.String)
}) {}

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
  address: Schema.NullOr(Schema.String),
  actorType: AuditActorType,
  actor: AuditName.annotations({
    description: "The operator's email, `CLI (os user)`, `API key <name>`, `anonymous <address>`"
  }),
  app: Schema.NullOr(AuditName).annotations({ description: "The app's name (its id when the app is gone)" }),
  subject: Schema.NullOr(AuditName).annotations({
    description: "What the change was done to, by name (an erased user is named by nothing of its own)"
  }),
  summary: Schema.String.annotations({ description: "The detail as one short line, e.g. `permissions: read, write`" })
}) {}

export class AuditPage extends Schema.Class<AuditPage>("AuditPage")({
  data: Schema.Array(AuditEvent),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

/** An action's name: letters, digits and dots. */
export const AuditAction = Schema.String.pipe(
  Schema.maxLength(100),
  Schema.pattern(/^[A-Za-z][A-Za-z0-9.]*$/, { message: () => "action: letters, digits and dots" })
)

/** The filters of the audit log and its export; `from` is inclusive, `to` exclusive. */
export const AuditFilters = Schema.Struct({
  actorType: Schema.optional(AuditActorType),
  operatorId: Schema.optional(OperatorId),
  action: Schema.optional(AuditAction),
  appId: Schema.optional(AppId),
  from: Schema.optional(Timestamp),
  to: Schema.optional(Timestamp)
})
export type AuditFilters = typeof AuditFilters.Type

export const AuditExportFormat = Schema.Literal("csv", "jsonl")

export class CreateOperatorPayload extends Schema.Class<CreateOperatorPayload>("CreateOperatorPayload")({
  email: OperatorEmail,
  role: OperatorRole
}) {}

export class RolePayload extends Schema.Class<RolePayload>("RolePayload")({ role: OperatorRole }) {}

/** An operator with a new one-time setup link, on which it chooses its password. */
export class OperatorWithSetupLink extends Schema.Class<OperatorWithSetupLink>("OperatorWithSetupLink")({
  operator: Operator,
  setupUrl: Schema.String.annotations({ description: "The one-time setup link: shown this once, never again" }),
  setupExpiresAt: Timestamp
}) {}

/** The portal's settings that an admin changes. */
export class PortalSettings extends Schema.Class<PortalSettings>("PortalSettings")({
  secondFactorRequired: Schema.Boolean.annotations({
    description: "Every operator logs in with TOTP; one without it can do nothing but set it up"
  })
}) {}

export const OperatorPath = Schema.Struct({ operatorId: OperatorId })

const operatorChange = <const Name extends string>(name: Name, path: string) =>
  HttpApiEndpoint.post(name, `/portal/api/operators/:operatorId/${path}`)
    .setPath(OperatorPath)
    .addSuccess(Operator)
    .addError(NotFound)
    .addError(Conflict)

export class OperatorsGroup extends HttpApiGroup.make("portalOperators")
  .add(
    HttpApiEndpoint.get("audit", "/portal/api/audit")
      .setUrlParams(Schema.Struct({
        ...AuditFilters.fields,
        cursor: Schema.optional(PageCursor),
        limit: Schema.optional(PageLimit)
      }))
      .addSuccess(AuditPage)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("auditExport", "/portal/api/audit/export")
      .setUrlParams(Schema.Struct({ ...AuditFilters.fields, format: AuditExportFormat }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("operators", "/portal/api/operators").addSuccess(
      Schema.Struct({ data: Schema.Array(Operator) })
    )
  )
  .add(
    HttpApiEndpoint.post("createOperator", "/portal/api/operators")
      .setPayload(CreateOperatorPayload)
      .addSuccess(OperatorWithSetupLink, { status: 201 })
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.put("setRole", "/portal/api/operators/:operatorId/role")
      .setPath(OperatorPath)
      .setPayload(RolePayload)
      .addSuccess(Operator)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(operatorChange("disableOperator", "disable"))
  .add(operatorChange("enableOperator", "enable"))
  .add(operatorChange("resetSecondFactor", "reset-second-factor"))
  .add(HttpApiEndpoint.get("settings", "/portal/api/settings").addSuccess(PortalSettings))
  .add(HttpApiEndpoint.put("setSettings", "/portal/api/settings").setPayload(PortalSettings).addSuccess(PortalSettings))
  .add(
    HttpApiEndpoint.post("resetPassword", "/portal/api/operators/:operatorId/reset-password")
      .setPath(OperatorPath)
      .addSuccess(OperatorWithSetupLink)
      .addError(NotFound)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
