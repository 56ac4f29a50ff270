/**
 * Handlers of the portal's users group: an app's users, a user's page (connections, charts,
 * journal and photos), its re-sync, export and erasure. Each calls one `UserPages`/`UserChanges`
 * method; the services' errors become the contract's here, and every change is audited.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Api, BadRequest, Conflict, NotFound } from "@pulsebridge/domain"
import { UsersGroup } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import { Audit, portalActor } from "../operators/Audit.js"
import { UserChanges, UserPages } from "./UserPages.js"

const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))
const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))

const inlineName = (fileName: string) => fileName.replace(/[^A-Za-z0-9._-]/g, "_")

export const PortalUsersHttpLive = HttpApiBuilder.group(
  Api.add(UsersGroup),
  "portalUsers",
  (handlers) =>
    Effect.gen(function*() {
      const pages = yield* UserPages
      const changes = yield* UserChanges
      const audit = yield* Audit
      return handlers
        .handle("list", ({ path, urlParams }) =>
          pages.list(path.appId, urlParams).pipe(
            Effect.catchTags({ PortalAppNotFound: notFound, CursorInvalid: badRequest })
          ))
        .handle("get", ({ path }) => pages.detail(path.userId).pipe(Effect.catchTags({ UserNotFound: notFound })))
        .handle("overview", ({ path, urlParams }) =>
          pages.overview(path.userId, urlParams).pipe(
            Effect.catchTags({ UserNotFound: notFound, PageRangeRefused: badRequest })
          ))
        .handle("journal", ({ path, urlParams }) =>
          pages.journal(path.userId, urlParams).pipe(
            Effect.map((data) => ({ data })),
            Effect.catchTags({ UserNotFound: notFound, PageRangeRefused: badRequest })
          ))
        .handle("photo", ({ path }) =>
          pages.photo(path.userId, path.entryId).pipe(
            Effect.map((image) =>
              HttpServerResponse.uint8Array(image.bytes, {
                contentType: image.contentType,
                headers: {
                  "content-disposition": `inline; filename="${inlineName(image.fileName)}"`,
                  // A meal photo is personal data: no cache keeps it (nor keeps it after the user's erasure).
                  "cache-control": "no-store",
                  "x-content-type-options": "nosniff"
                }
              })
            ),
            Effect.catchTags({
              UserNotFound: notFound,
              EntryNotFound: notFound,
              ImageNotFound: notFound,
              ImageBlobMissing: notFound
            })
          ))
        .handle("resync", ({ path }) =>
          Effect.gen(function*() {
            const { accepted, user } = yield* changes.resync(path.userId, path.connectionId)
            yield* audit.record({
              ...(yield* portalActor),
              action: "connection.resync",
              targetType: "connection",
              targetId: accepted.connectionId,
              appId: user.appId,
              detail: { userId: user.id, kind: accepted.kind, from: accepted.from, to: accepted.to }
            })
            return accepted
          }).pipe(
            Effect.catchTags({
              UserNotFound: notFound,
              ConnectionNotFound: notFound,
              ConnectionNotActive: (e) => Effect.fail(new Conflict({ message: e.message })),
              // Without a range a re-sync refuses none.
              RangeRefused: Effect.die
            })
          ))
        .handle("export", ({ path }) =>
          Effect.gen(function*() {
            const { stream, user } = yield* pages.exportOf(path.userId)
            // Reading everything stored of a user is worth a line in the log, like a change.
            yield* audit.record({
              ...(yield* portalActor),
              action: "user.export",
              targetType: "user",
              targetId: user.id,
              appId: user.appId,
              detail: { externalUserId: user.externalUserId }
            })
            return HttpServerResponse.stream(stream, {
              contentType: "application/x-ndjson",
              headers: {
                "content-disposition": `attachment; filename="user-${user.id}.ndjson"`,
                "cache-control": "no-store"
              }
            })
          }).pipe(Effect.catchTags({ UserNotFound: notFound })))
        .handle("erase", ({ path, payload }) =>
          Effect.gen(function*() {
            const actor = yield* portalActor
            const { accepted } = yield* changes.erase(path.userId, payload.confirmExternalUserId, (user) =>
              audit.record({
                ...actor,
                action: "user.erase",
                targetType: "user",
                targetId: user.id,
                appId: user.appId
              }))
            return accepted
          }).pipe(
            Effect.catchTags({
              UserNotFound: notFound,
              UserNotFoundForErasure: notFound,
              ErasureNotConfirmed: badRequest
            })
          ))
    })
)
