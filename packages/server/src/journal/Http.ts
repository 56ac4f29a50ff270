/**
 * Handlers of the journal group (endpoints 16-20, and the stored photo of a scan): each checks that
 * the token's user is the user of the path, calls one `Journal` method, and turns the journal's
 * errors into the contract's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest, NotFound, PayloadTooLarge, UnsupportedMediaType } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../access/UserTokenAuth.js"
import { onlyServices } from "../platform/GroupContext.js"
import { Journal } from "./Journal.js"

const inlineName = (fileName: string) => fileName.replace(/[^A-Za-z0-9._-]/g, "_")

const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))
const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))

const journalGroup = HttpApiBuilder.group(Api, "journal", (handlers) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    return handlers
      .handle("create", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) => journal.create(user, payload)))
      .handle("scan", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.createScan(user, {
            path: payload.image.path,
            fileName: payload.image.name,
            entryKind: payload.entryKind,
            consumedAtUtc: payload.consumedAtUtc,
            timezone: payload.timezone,
            notes: payload.notes
          })).pipe(
            Effect.catchTags({
              ImageEmpty: badRequest,
              ImageUnreadable: (e) =>
                Effect.fail(new UnsupportedMediaType({ message: e.message })),
              ImageTooLarge: (e) => Effect.fail(new PayloadTooLarge({ message: e.message })),
              ImageTypeUnsupported: (e) => Effect.fail(new UnsupportedMediaType({ message: e.message }))
            })
          ))
      .handle("list", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.list(user, urlParams.date)))
      .handle("get", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.get(user, path.entryId)).pipe(
            Effect.catchTags({ EntryNotFound: notFound })
          ))
      .handle("image", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.image(user, path.entryId)).pipe(
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
            Effect.catchTags({ EntryNotFound: notFound, ImageNotFound: notFound, ImageBlobMissing: notFound })
          ))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.update(user, path.entryId, payload)).pipe(
            Effect.catchTags({ EntryNotFound: notFound, NutrientsOfItemizedEntry: badRequest })
          ))
  })).pipe(Layer.provide(UserTokenAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const JournalHttpLive = onlyServices([SqlClient.SqlClient, Journal], journalGroup)
