/**
 * Handlers of the journal group (endpoints 16-20, and the stored photo of a scan).
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireSelf, UserTokenAuthLive } from "../users/UserTokenAuth.js"
import { Journal } from "./Journal.js"
import { MealAnalyzer } from "./MealAnalyzer.js"

const inlineName = (fileName: string) => fileName.replace(/[^A-Za-z0-9._-]/g, "_")

export const JournalHttpLive = HttpApiBuilder.group(Api, "journal", (handlers) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const analyzer = yield* MealAnalyzer
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
          }, { name: analyzer.name, model: analyzer.model })))
      .handle("list", ({ path, urlParams }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.list(user, urlParams.date)))
      .handle("get", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.get(user, path.entryId)))
      .handle("image", ({ path }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          Effect.map(journal.image(user, path.entryId), (image) =>
            HttpServerResponse.uint8Array(image.bytes, {
              contentType: image.contentType,
              headers: {
                "content-disposition": `inline; filename="${inlineName(image.fileName)}"`,
                "cache-control": "private, max-age=86400",
                "x-content-type-options": "nosniff"
              }
            }))))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(requireSelf(path.userId), (user) =>
          journal.update(user, path.entryId, payload)))
  })).pipe(Layer.provide(UserTokenAuthLive))
