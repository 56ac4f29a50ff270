/**
 * Handlers of the portal's overview group: the counts of what needs an operator's look, per app or across
 * all apps, and a page of each list. Each calls one `OverviewRepo` method; an unknown app is a 404 and a
 * cursor another list gave (or none gave) a 400.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { BadRequest, NotFound } from "@pulsebridge/domain"
import {
  ConnectionIssuePage,
  defaultBehindHours,
  EndpointIssuePage,
  OverviewCounts,
  QuarantinePage
} from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import { ServedApi } from "../ServedApi.js"
import { defaultOverviewPageSize, OverviewRepo } from "./OverviewRepo.js"

const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))
const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))
const refusals = { OverviewAppNotFound: notFound, OverviewCursorInvalid: badRequest }

export const OverviewHttpLive = HttpApiBuilder.group(ServedApi, "portalOverview", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* OverviewRepo
    return handlers
      .handle("counts", ({ urlParams }) =>
        repo.counts({ appId: urlParams.app, behindHours: urlParams.behindHours ?? defaultBehindHours }).pipe(
          Effect.map((counts) =>
            new OverviewCounts(counts)
          ),
          Effect.catchTag("OverviewAppNotFound", notFound)
        ))
      .handle("connections", ({ urlParams }) =>
        repo.connections(urlParams.kind, {
          appId: urlParams.app,
          cursor: urlParams.cursor,
          limit: urlParams.limit ?? defaultOverviewPageSize,
          behindHours: urlParams.behindHours ?? defaultBehindHours
        }).pipe(
          Effect.map((page) => new ConnectionIssuePage(page)),
          Effect.catchTags(refusals)
        ))
      .handle("quarantine", ({ urlParams }) =>
        repo.quarantine({
          appId: urlParams.app,
          cursor: urlParams.cursor,
          limit: urlParams.limit ?? defaultOverviewPageSize
        }).pipe(
          Effect.map((page) => new QuarantinePage(page)),
          Effect.catchTags(refusals)
        ))
      .handle("webhookEndpoints", ({ urlParams }) =>
        repo.endpoints(urlParams.kind, {
          appId: urlParams.app,
          cursor: urlParams.cursor,
          limit: urlParams.limit ?? defaultOverviewPageSize
        }).pipe(
          Effect.map((page) => new EndpointIssuePage(page)),
          Effect.catchTags(refusals)
        ))
  }))
