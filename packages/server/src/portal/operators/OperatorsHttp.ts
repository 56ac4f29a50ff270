/**
 * The portal's operators group: the audit log (filtered, newest first, keyset paging), its export as CSV or
 * JSON Lines (streamed), and the operators: their list and an admin's changes to them (the role checked by
 * `PortalAuth`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { BadRequest, Conflict, NotFound } from "@pulsebridge/domain"
import { AuditEvent, AuditPage, OperatorWithSetupLink, PortalSettings } from "@pulsebridge/portal/api"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServedApi } from "../ServedApi.js"
import { Audit, portalActor } from "./Audit.js"
import type { OperatorRow } from "./Operators.js"
import { Operators, setupLinkValidity } from "./Operators.js"
import { SecondFactor } from "./SecondFactor.js"
import { toOperator } from "./SessionHttp.js"

const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))
const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))
const conflict = (error: { readonly message: string }) => Effect.fail(new Conflict({ message: error.message }))

const encodeEvent = Schema.encodeSync(AuditEvent)

/** The export's columns, in order. */
const csvColumns = [
  "id",
  "at",
  "actorType",
  "actor",
  "action",
  "appId",
  "app",
  "targetType",
  "targetId",
  "subject",
  "summary",
  "detail",
  "address"
] as const

/**
 * One CSV cell: quoted, its quotes doubled, and a text a spreadsheet would run as a formula (starting with `=`,
 * `+`, `-`, `@`, a tab or a carriage return) led by an apostrophe, so it is shown as the text it is.
 */
export const csvCell = (value: string | null) => {
  const text = value ?? ""
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return `"${safe.replace(/"/g, "\"\"")}"`
}

const csvLine = (event: AuditEvent) => {
  const cells: Record<(typeof csvColumns)[number], string | null> = {
    id: event.id,
    at: event.at.toISOString(),
    actorType: event.actorType,
    actor: event.actor.label,
    action: event.action,
    appId: event.appId,
    app: event.app?.label ?? null,
    targetType: event.targetType,
    targetId: event.targetId,
    subject: event.subject?.label ?? null,
    summary: event.summary,
    detail: JSON.stringify(event.detail),
    address: event.address
  }
  return csvColumns.map((column) => csvCell(cells[column])).join(",") + "\r\n"
}

export const OperatorsHttpLive = HttpApiBuilder.group(
  ServedApi,
  "portalOperators",
  (handlers) =>
    Effect.gen(function*() {
      const audit = yield* Audit
      const operators = yield* Operators
      const bases = yield* ServerBases
      const secondFactor = yield* SecondFactor
      const withLink = (operator: OperatorRow, setupToken: string, at: Date) =>
        new OperatorWithSetupLink({
          operator: toOperator(operator),
          setupUrl: `${bases.publicBase}/portal/setup#${setupToken}`,
          setupExpiresAt: new Date(at.getTime() + Duration.toMillis(setupLinkValidity))
        })
      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
      return handlers
        .handle("audit", ({ urlParams: { cursor, limit, ...filters } }) =>
          audit.page(cursor, limit ?? 50, filters).pipe(
            Effect.map((page) => new AuditPage(page)),
            Effect.catchTags({ BadCursor: badRequest, BadRange: badRequest })
          ))
        .handle("auditExport", ({ urlParams: { format, ...filters } }) =>
          Effect.gen(function*() {
            const events = yield* audit.stream(filters)
            const lines = format === "csv"
              ? Stream.concat(Stream.make(csvColumns.join(",") + "\r\n"), Stream.map(events, csvLine))
              : Stream.map(events, (event) => JSON.stringify(encodeEvent(event)) + "\n")
            const stamp = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 19).replace(/:/g, "")
            return HttpServerResponse.stream(Stream.encodeText(lines), {
              contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8",
              headers: {
                "content-disposition": `attachment; filename="audit-${stamp}.${format === "csv" ? "csv" : "jsonl"}"`
              }
            })
          }).pipe(Effect.catchTags({ BadRange: badRequest })))
        .handle("operators", () => Effect.map(operators.list, (rows) => ({ data: rows.map(toOperator) })))
        .handle("createOperator", ({ payload }) =>
          Effect.gen(function*() {
            const created = yield* operators.create(payload.email, undefined, yield* portalActor, payload.role)
            return withLink(created.operator, created.setupToken!, created.operator.createdAt)
          }).pipe(
            // Without a password, nothing is hashed.
            Effect.catchTags({ EmailTaken: conflict, PasswordHashingBusy: Effect.die })
          ))
        .handle("setRole", ({ path, payload }) =>
          Effect.flatMap(portalActor, (actor) =>
            operators.setRole({ id: path.operatorId }, payload.role, actor)).pipe(
              Effect.map((done) => toOperator(done.operator)),
              Effect.catchTags({ OperatorNotFound: notFound, LastAdmin: conflict })
            ))
        .handle("disableOperator", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            operators.disable({ id: path.operatorId }, actor)).pipe(
              Effect.map((done) =>
                toOperator(done.operator)
              ),
              Effect.catchTags({ OperatorNotFound: notFound, LastAdmin: conflict })
            ))
        .handle("enableOperator", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            operators.enable({ id: path.operatorId }, actor)).pipe(
              Effect.map((done) =>
                toOperator(done.operator)
              ),
              Effect.catchTags({ OperatorNotFound: notFound })
            ))
        .handle("settings", () =>
          Effect.map(secondFactor.required, (secondFactorRequired) =>
            new PortalSettings({ secondFactorRequired })))
        .handle("setSettings", ({ payload }) =>
          Effect.flatMap(portalActor, (actor) =>
            secondFactor.setRequired(payload.secondFactorRequired, actor)).pipe(
              Effect.map((secondFactorRequired) =>
                new PortalSettings({ secondFactorRequired })
              )
            ))
        .handle("resetSecondFactor", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            operators.resetSecondFactor({ id: path.operatorId }, actor)).pipe(
              Effect.map((done) =>
                toOperator(done.operator)
              ),
              Effect.catchTags({ OperatorNotFound: notFound })
            ))
        .handle("resetPassword", ({ path }) =>
          Effect.gen(function*() {
            const done = yield* operators.resetPassword({ id: path.operatorId }, yield* portalActor)
            return withLink(done.operator, done.setupToken, yield* now)
          }).pipe(Effect.catchTags({ OperatorNotFound: notFound })))
    })
)
