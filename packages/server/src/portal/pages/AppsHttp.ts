/**
 * The portal's apps group: apps with their user counts, their API keys (a new key is answered once,
 * whole) and their credentials at each registered provider (secrets are write-only).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { BadRequest, NotFound } from "@pulsebridge/domain"
import { CreatedKey } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import { portalActor } from "../operators/Audit.js"
import { ServedApi } from "../ServedApi.js"
import { PortalApps } from "./PortalApps.js"

const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))

export const AppsHttpLive = HttpApiBuilder.group(ServedApi, "portalApps", (handlers) =>
  Effect.gen(function*() {
    const portalApps = yield* PortalApps
    return handlers
      .handle("list", () => Effect.map(portalApps.list, (data) => ({ data })))
      .handle("create", ({ payload }) => Effect.flatMap(portalActor, (actor) => portalApps.create(payload.name, actor)))
      .handle("get", ({ path }) => portalApps.get(path.appId).pipe(Effect.catchTag("AppNotFound", notFound)))
      .handle("rename", ({ path, payload }) =>
        Effect.flatMap(portalActor, (actor) =>
          portalApps.rename(path.appId, payload.name, actor)).pipe(
            Effect.catchTag("AppNotFound", notFound)
          ))
      .handle("assistantSignIn", ({ path }) =>
        portalApps.assistantSignIn(path.appId).pipe(Effect.catchTag("AppNotFound", notFound)))
      .handle("setAssistantSignIn", ({ path, payload }) =>
        Effect.flatMap(portalActor, (actor) =>
          portalApps.setAssistantSignIn(path.appId, payload.assistantSignInUrl, actor)).pipe(
            Effect.catchTags({
              AppNotFound: notFound,
              SignInUrlRefused: (refused) =>
                Effect.fail(new BadRequest({ message: refused.message }))
            })
          ))
      .handle("keys", ({ path }) =>
        portalApps.keys(path.appId).pipe(
          Effect.map((data) => ({ data })),
          Effect.catchTag("AppNotFound", notFound)
        ))
      .handle("createKey", ({ path, payload }) =>
        Effect.flatMap(
          portalActor,
          (actor) =>
            portalApps.createKey(path.appId, payload.permissions, payload.name, actor)
        ).pipe(
          Effect.map((created) =>
            new CreatedKey(created)
          ),
          Effect.catchTag("AppNotFound", notFound)
        ))
      .handle("revokeKey", ({ path }) =>
        Effect.flatMap(portalActor, (actor) =>
          portalApps.revokeKey(path.appId, path.keyId, actor)).pipe(
            Effect.catchTags({ AppNotFound: notFound, ApiKeyNotFound: notFound })
          ))
      .handle("providers", ({ path }) =>
        portalApps.providers(path.appId).pipe(
          Effect.map((data) => ({ data })),
          Effect.catchTag("AppNotFound", notFound)
        ))
      .handle("setProvider", ({ path, payload }) =>
        Effect.flatMap(portalActor, (actor) =>
          portalApps.setProvider(path.appId, path.provider, payload, actor)).pipe(
            Effect.catchTags({
              AppNotFound: notFound,
              ProviderNotRegistered: notFound,
              CredentialsRefused: (error) =>
                Effect.fail(new BadRequest({ message: error.message }))
            })
          ))
  }))
