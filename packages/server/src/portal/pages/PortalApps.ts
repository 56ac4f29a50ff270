/**
 * What the portal changes of apps, their API keys and their provider credentials, each change with
 * its audit event in one transaction. The rules stay in `Apps` and `ProviderCredentials`; this adds
 * the audit, the portal's views (user counts, key names and last use) and the provider setup page:
 * every registered provider, configured or not, with the callback and webhook URLs to register at it.
 * Secrets go in and never come out: not in answers, not in the audit, not in logs.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, Permission, Provider } from "@pulsebridge/domain"
import type { ProviderCredentialsPayload } from "@pulsebridge/portal/api"
import { ApiKeySummary, AssistantSignIn, PortalApp, ProviderSetup } from "@pulsebridge/portal/api"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ApiKeyRecord } from "../../apps/Apps.js"
import { Apps } from "../../apps/Apps.js"
import { ProviderCredentials } from "../../apps/ProviderCredentials.js"
import { callbackUrlOf } from "../../connections/ConnectFlow.js"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import type { AuditEntry } from "../operators/Audit.js"
import { Audit } from "../operators/Audit.js"

/** No provider of this name is registered. */
export class ProviderNotRegistered extends Data.TaggedError("ProviderNotRegistered")<{ readonly provider: string }> {
  override get message() {
    return `no provider named ${this.provider}`
  }
}

/** Credentials the provider cannot take (a kind it does not speak, half of a key pair). */
export class CredentialsRefused extends Data.TaggedError("CredentialsRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export type PortalActor = Pick<AuditEntry, "operator" | "address">

export const toKeySummary = (key: ApiKeyRecord) =>
  new ApiKeySummary({
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    permissions: key.permissions,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt
  })

export class PortalApps extends Effect.Service<PortalApps>()("@pulsebridge/server/PortalApps", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const apps = yield* Apps
    const credentials = yield* ProviderCredentials
    const audit = yield* Audit
    const registry = yield* ProviderRegistry
    const bases = yield* ServerBases
    const config = yield* ServerConfig
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))

    const setupOf = (
      appId: AppId,
      plugin: (typeof registry.plugins)[number],
      stored: ReadonlyArray<
        Effect.Effect.Success<ReturnType<typeof credentials.list>>[number]
      >
    ) => {
      const own = stored.find((entry) => entry.provider === plugin.catalog.name)
      const authType = own === undefined ? null : own.authType ?? plugin.catalog.authType
      return new ProviderSetup({
        provider: plugin.catalog.name,
        displayName: plugin.catalog.name,
        authTypes: [plugin.adapter.authType, ...(plugin.alternateAdapters ?? []).map((adapter) => adapter.authType)],
        configured: own !== undefined,
        authType,
        clientId: own?.clientId ?? null,
        scopes: own?.scopes ?? null,
        updatedAt: own?.updatedAt ?? null,
        callbackUrl: callbackUrlOf(bases.publicBase, authType ?? plugin.catalog.authType),
        webhookUrl: plugin.webhooks === undefined
          ? null
          : `${bases.publicBase}/webhooks/${plugin.catalog.slug}/${appId}`
      })
    }

    return {
      list: Effect.map(apps.listWithUsers, (rows) => rows.map((row) => new PortalApp(row))),

      get: (appId: string) => Effect.map(apps.getWithUsers(appId), (row) => new PortalApp(row)),

      create: (name: string, actor: PortalActor) =>
        inTransaction(Effect.gen(function*() {
          const app = yield* apps.createWithoutKey(name)
          yield* audit.record({
            ...actor,
            action: "app.create",
            targetType: "app",
            targetId: app.id,
            appId: app.id,
            detail: { name }
          })
          return new PortalApp({ ...app, users: 0 })
        })),

      rename: (appId: string, name: string, actor: PortalActor) =>
        inTransaction(Effect.gen(function*() {
          const before = yield* apps.getWithUsers(appId)
          const app = yield* apps.rename(appId, name)
          yield* audit.record({
            ...actor,
            action: "app.rename",
            targetType: "app",
            targetId: app.id,
            appId: app.id,
            detail: { from: before.name, to: name }
          })
          return new PortalApp({ ...app, users: before.users })
        })),

      /** The app's assistant sign-in URL (docs/mcp.md). */
      assistantSignIn: (appId: string) =>
        Effect.map(apps.assistantSignInUrl(appId), (url) => new AssistantSignIn({ assistantSignInUrl: url })),

      /** Sets or clears the app's assistant sign-in URL, audited. */
      setAssistantSignIn: (appId: string, url: string | null, actor: PortalActor) =>
        inTransaction(Effect.gen(function*() {
          yield* apps.setAssistantSignInUrl(appId, url, { sandbox: config.sandbox })
          yield* audit.record({
            ...actor,
            action: "app.assistantSignIn",
            targetType: "app",
            targetId: appId,
            appId,
            detail: { assistantSignInUrl: url }
          })
          return new AssistantSignIn({ assistantSignInUrl: url })
        })),

      keys: (appId: string) => Effect.map(apps.listApiKeys(appId), (keys) => keys.map(toKeySummary)),

      createKey: (
        appId: string,
        permissions: ReadonlyArray<Permission>,
        name: string | undefined,
        actor: PortalActor
      ) =>
        inTransaction(Effect.gen(function*() {
          const created = yield* apps.createApiKey(appId, permissions, name)
          const listed = (yield* apps.listApiKeys(appId)).find((key) => key.id === created.id)!
          yield* audit.record({
            ...actor,
            action: "apiKey.create",
            targetType: "apiKey",
            targetId: created.id,
            appId,
            detail: { name: name ?? null, prefix: created.prefix, permissions: created.permissions }
          })
          return { key: toKeySummary(listed), apiKey: created.apiKey }
        })),

      revokeKey: (appId: string, keyId: string, actor: PortalActor) =>
        inTransaction(Effect.gen(function*() {
          yield* apps.getWithUsers(appId)
          const revoked = yield* apps.revokeApiKey(keyId, appId)
          yield* audit.record({
            ...actor,
            action: "apiKey.revoke",
            targetType: "apiKey",
            targetId: revoked.id,
            appId,
            detail: { prefix: revoked.prefix }
          })
          return toKeySummary(revoked)
        })),

      providers: (appId: string) =>
        Effect.gen(function*() {
          const app = yield* apps.getWithUsers(appId)
          const stored = yield* credentials.list(app.id)
          return registry.plugins.map((plugin) => setupOf(app.id, plugin, stored))
        }),

      /**
       * Sets or replaces the app's credentials at the provider. What the portal does not edit (base-URL
       * overrides, redirect URL prefixes) is kept from the credentials replaced.
       */
      setProvider: (appId: string, provider: Provider, payload: ProviderCredentialsPayload, actor: PortalActor) =>
        inTransaction(Effect.gen(function*() {
          const app = yield* apps.getWithUsers(appId)
          const plugin = registry.find(provider)
          if (Option.isNone(plugin)) return yield* new ProviderNotRegistered({ provider })
          const accepted = [plugin.value.adapter, ...(plugin.value.alternateAdapters ?? [])].map((a) => a.authType)
          if (payload.authType !== undefined && !accepted.includes(payload.authType)) {
            return yield* new CredentialsRefused({
              reason: `authType: ${provider} accepts ${accepted.join(" or ")} credentials, not ${payload.authType}`
            })
          }
          if ((payload.oauth1ClientId === undefined) !== (payload.oauth1ClientSecret === undefined)) {
            return yield* new CredentialsRefused({
              reason: "oauth1ClientId and oauth1ClientSecret: give both or neither"
            })
          }
          if (payload.oauth1ClientId !== undefined && payload.authType !== "OAuth2") {
            return yield* new CredentialsRefused({
              reason: "oauth1ClientId: only OAuth2 credentials keep an OAuth 1.0a key beside them"
            })
          }
          const before = (yield* credentials.list(app.id)).find((entry) => entry.provider === provider)
          yield* credentials.set(app.id, provider, {
            clientId: payload.clientId,
            clientSecret: Redacted.make(payload.clientSecret),
            authType: payload.authType,
            scopes: payload.scopes,
            oauth1ClientId: payload.oauth1ClientId,
            oauth1ClientSecret: payload.oauth1ClientSecret === undefined
              ? undefined
              : Redacted.make(payload.oauth1ClientSecret),
            webhookVerificationCode: payload.webhookVerificationCode,
            authBaseUrl: before?.authBaseUrl ?? undefined,
            tokenBaseUrl: before?.tokenBaseUrl ?? undefined,
            apiBaseUrl: before?.apiBaseUrl ?? undefined,
            redirectUrlPrefixes: before?.redirectUrlPrefixes
          })
          yield* audit.record({
            ...actor,
            action: before === undefined ? "providerCredentials.create" : "providerCredentials.replace",
            targetType: "provider",
            targetId: provider,
            appId: app.id,
            detail: {
              provider,
              clientId: payload.clientId,
              authType: payload.authType ?? null,
              scopes: payload.scopes ?? null,
              oauth1ClientId: payload.oauth1ClientId ?? null,
              webhookVerificationCode: payload.webhookVerificationCode === undefined ? "unchanged-or-none" : "set"
            }
          })
          const stored = yield* credentials.list(app.id)
          return setupOf(app.id, plugin.value, stored)
        }))
    } as const
  }),
  dependencies: [Audit.Default]
}) {}
