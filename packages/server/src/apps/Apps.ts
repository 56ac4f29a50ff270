/**
 * Apps (the tenants) and their API keys. An API key is shown once at creation; only its hash
 * and a short display prefix are stored (`ApiKeysRepo`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { ApiKeyId, AppId, Permission } from "@pulsebridge/domain"
import { allPermissions } from "@pulsebridge/domain"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ApiKeysRepo } from "../access/ApiKeysRepo.js"
import { ApiKeyPrefix, displayPrefix, generateSecret, hashSecret } from "../access/CredentialHash.js"
import { isUuid, newId } from "../platform/Ids.js"
import { traced } from "../platform/Traced.js"
import { AppsRepo } from "./AppsRepo.js"

export { ApiKeyRecord, AuthenticatedApp } from "../access/ApiKeysRepo.js"
export { App, AppWithUsers } from "./AppsRepo.js"

/** No app has this id (or the id is not one an app could have). */
export class AppNotFound extends Data.TaggedError("AppNotFound")<{ readonly appId: string }> {
  override get message() {
    return `no app with id ${this.appId}`
  }
}

/** No API key has this id. */
export class ApiKeyNotFound extends Data.TaggedError("ApiKeyNotFound")<{ readonly apiKeyId: string }> {
  override get message() {
    return `no API key with id ${this.apiKeyId}`
  }
}

/** An assistant sign-in URL that is not an https URL. */
export class SignInUrlRefused extends Data.TaggedError("SignInUrlRefused")<{ readonly message: string }> {}

/**
 * Why an app's assistant sign-in URL is refused, or undefined: an absolute https URL without a fragment, at most
 * 2,048 characters (http on a loopback host too in sandbox mode).
 */
export const signInUrlProblem = (value: string, sandbox: boolean): string | undefined => {
  if (value.length > 2048) return "the sign-in URL may have at most 2048 characters"

  if (/[\u0000-\u001f\u007f]/.test(value)) return "the sign-in URL may not contain control characters"
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "the sign-in URL must be an absolute URL"
  }
  if (url.hash !== "" || url.username !== "" || url.password !== "") {
    return "the sign-in URL may not have a fragment or credentials"
  }
  if (url.protocol === "https:") return undefined
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
  if (sandbox && url.protocol === "http:" && loopback) return undefined
  return "the sign-in URL must use https"
}

export interface CreatedApiKey {
  readonly id: ApiKeyId
  readonly apiKey: string
  readonly prefix: string
  readonly permissions: ReadonlyArray<Permission>
}

export class Apps extends Effect.Service<Apps>()("@pulsebridge/server/Apps", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const appsRepo = yield* AppsRepo
    const keysRepo = yield* ApiKeysRepo

    const issueKey = (appId: AppId, permissions: ReadonlyArray<Permission>, name?: string) =>
      Effect.gen(function*() {
        const apiKey = generateSecret(ApiKeyPrefix)
        const key = { id: newId<ApiKeyId>(), prefix: displayPrefix(apiKey), permissions }
        yield* keysRepo.insert({ ...key, appId, keyHash: hashSecret(apiKey), name: name ?? null })
        return { ...key, apiKey } satisfies CreatedApiKey
      })

    const get = traced("Apps.get")(function*(appId: string) {
      return isUuid(appId) ? yield* appsRepo.findById(appId) : Option.none()
    })

    const requireApp = (appId: string) =>
      Effect.flatMap(
        get(appId),
        Option.match({ onNone: () => Effect.fail(new AppNotFound({ appId })), onSome: Effect.succeed })
      )

    return {
      /** Creates an app and its first API key, which carries every permission. */
      create: traced("Apps.create")(
        function*(name: string) {
          const app = yield* appsRepo.insert(newId<AppId>(), name)
          const key = yield* issueKey(app.id, allPermissions)
          return { app, apiKey: key.apiKey, apiKeyId: key.id }
        },
        sql.withTransaction,
        Effect.orDie
      ),

      /** Creates an app without a key (the portal creates keys one by one, each shown once). */
      createWithoutKey: traced("Apps.createWithoutKey")(function*(name: string) {
        return yield* appsRepo.insert(newId<AppId>(), name)
      }),

      list: appsRepo.list.pipe(Effect.withSpan("Apps.list")),

      /** Every app with the number of its users. */
      listWithUsers: appsRepo.listWithUsers.pipe(Effect.withSpan("Apps.listWithUsers")),

      /** The app with the number of its users. */
      getWithUsers: traced("Apps.getWithUsers")(function*(appId: string) {
        const found = isUuid(appId) ? yield* appsRepo.findWithUsers(appId) : Option.none()
        if (Option.isNone(found)) return yield* new AppNotFound({ appId })
        return found.value
      }),

      rename: traced("Apps.rename")(function*(appId: string, name: string) {
        const renamed = isUuid(appId) ? yield* appsRepo.rename(appId, name) : Option.none()
        if (Option.isNone(renamed)) return yield* new AppNotFound({ appId })
        return renamed.value
      }),

      /**
       * Sets the app's assistant sign-in URL (docs/mcp.md: where PulseBridge sends an assistant's OAuth sign-in),
       * or clears it with null. An https URL (http on a loopback host too in sandbox mode).
       */
      setAssistantSignInUrl: traced("Apps.setAssistantSignInUrl")(
        function*(appId: string, url: string | null, options: { readonly sandbox: boolean }) {
          if (url !== null) {
            const problem = signInUrlProblem(url, options.sandbox)
            if (problem !== undefined) return yield* new SignInUrlRefused({ message: problem })
          }
          const set = isUuid(appId) ? yield* appsRepo.setAssistantSignInUrl(appId, url) : false
          if (!set) return yield* new AppNotFound({ appId })
        }
      ),

      /** The app's assistant sign-in URL, or null. */
      assistantSignInUrl: traced("Apps.assistantSignInUrl")(function*(appId: string) {
        const found = isUuid(appId) ? yield* appsRepo.assistantSignInUrl(appId) : Option.none()
        if (Option.isNone(found)) return yield* new AppNotFound({ appId })
        return found.value
      }),

      /** How many apps there are (none on a fresh database). */
      count: appsRepo.count.pipe(Effect.withSpan("Apps.count")),

      /** The app with this id, or none (also for an id that is not a UUID). */
      get,

      createApiKey: traced("Apps.createApiKey")(
        function*(appId: string, permissions: ReadonlyArray<Permission>, name?: string) {
          const app = yield* requireApp(appId)
          return yield* issueKey(app.id, permissions, name)
        }
      ),

      listApiKeys: traced("Apps.listApiKeys")(function*(appId: string) {
        const app = yield* requireApp(appId)
        return yield* keysRepo.listOfApp(app.id)
      }),

      /** Revokes a key (of `appId`, when given); revoking twice is harmless. */
      revokeApiKey: traced("Apps.revokeApiKey")(function*(apiKeyId: string, appId?: string) {
        const revoked = isUuid(apiKeyId) && (appId === undefined || isUuid(appId))
          ? yield* keysRepo.revoke(apiKeyId, appId)
          : Option.none()
        if (Option.isNone(revoked)) return yield* new ApiKeyNotFound({ apiKeyId })
        return revoked.value
      })
    } as const
  }),
  dependencies: [AppsRepo.Default, ApiKeysRepo.Default]
}) {}
