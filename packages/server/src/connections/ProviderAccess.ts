/**
 * How this server reaches a provider for an app: the adapter, the app's client credentials,
 * the endpoints (configured overrides, the sandbox simulators, or the provider's own hosts)
 * and the scopes. In sandbox mode an app without credentials uses the sandbox credentials.
 *
 * The adapter is the one of the credentials' kind (`authType`): the plug-in's own, or one of its
 * alternate adapters (Garmin's OAuth 2.0). A kind the provider does not accept leaves the
 * provider unconfigured for the app.
 */
import type { AppId, Provider } from "@pulsebridge/domain"
import type { ClientCredentials, ProviderAdapter, ProviderEndpoints } from "@pulsebridge/providers"
import { adapterFor, ProviderRegistry } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ProviderCredentials } from "../apps/ProviderCredentials.js"
import { SecretBox } from "../platform/SecretBox.js"
import { ServerBases } from "../platform/ServerBases.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import { ProviderNotConfigured, UnknownProvider } from "./Errors.js"

export interface ResolvedProvider {
  readonly adapter: ProviderAdapter
  readonly credentials: ClientCredentials
  readonly endpoints: ProviderEndpoints
  readonly scopes: ReadonlyArray<string>
  readonly redirectUrlPrefixes: ReadonlyArray<string>
  /** Fitbit: the Google Health subscriber's Authorization value (sandbox: derived from the secret key). */
  readonly webhookVerificationCode: string | null
  /** The public keys the provider signs deliveries with (sandbox: its simulator's); null: signatures not checked. */
  readonly webhookSigningKeys: string | null
}

export const splitScopes = (scopes: string): ReadonlyArray<string> => scopes.split(/[\s,]+/).filter((s) => s !== "")

export class ProviderAccess extends Effect.Service<ProviderAccess>()("@pulsebridge/server/ProviderAccess", {
  effect: Effect.gen(function*() {
    const config = yield* ServerConfig
    const stored = yield* ProviderCredentials
    const box = yield* SecretBox
    const registry = yield* ProviderRegistry
    const bases = yield* ServerBases

    const slugOf = (provider: Provider) => registry.plugin(provider).catalog.slug

    /** Where sandbox mode mounts the provider's simulator. */
    const sandboxPath = (provider: Provider) => `/sandbox/${slugOf(provider)}`

    /** The credentials every app uses in sandbox mode; the mounted simulators accept them. */
    const sandboxCredentials = (provider: Provider): ClientCredentials => ({
      clientId: `pulsebridge-sandbox-${slugOf(provider)}`,
      clientSecret: Redacted.make(box.derive(`sandbox-client-secret:${provider}`))
    })

    const sandboxVerificationCode = (provider: Provider) => box.derive(`sandbox-verification-code:${provider}`)

    /** The configured path of the OAuth endpoints, for the one provider that has a choice (Dexcom). */
    const oauthPathOf = (provider: Provider): string | undefined =>
      provider === "Dexcom" ? config.dexcomOAuthPath : undefined

    const sandboxEndpoints = (provider: Provider): ProviderEndpoints => ({
      authBaseUrl: bases.publicBase + sandboxPath(provider),
      tokenBaseUrl: bases.internalBase + sandboxPath(provider),
      apiBaseUrl: bases.internalBase + sandboxPath(provider),
      oauthPath: oauthPathOf(provider)
    })

    const resolve = (appId: AppId, provider: Provider) =>
      Effect.gen(function*() {
        const plugin = registry.find(provider)
        if (Option.isNone(plugin)) {
          return yield* new UnknownProvider({ provider })
        }
        const own = yield* stored.get(appId, provider)
        if (Option.isNone(own)) {
          const adapter = plugin.value.adapter
          if (!config.sandbox) {
            return yield* new ProviderNotConfigured({ provider })
          }
          return {
            adapter,
            credentials: sandboxCredentials(provider),
            endpoints: sandboxEndpoints(provider),
            scopes: adapter.defaultScopes,
            redirectUrlPrefixes: [],
            webhookVerificationCode: sandboxVerificationCode(provider),
            webhookSigningKeys:
              plugin.value.sandboxSigningKeys?.(Redacted.value(sandboxCredentials(provider).clientSecret)) ?? null
          } satisfies ResolvedProvider
        }
        const creds = own.value
        const adapter = creds.authType === null ? plugin.value.adapter : adapterFor(plugin.value, creds.authType)
        if (adapter === undefined) {
          return yield* new ProviderNotConfigured({ provider })
        }
        const defaults = config.sandbox ? sandboxEndpoints(provider) : adapter.defaultEndpoints
        return {
          adapter,
          credentials: {
            clientId: creds.clientId,
            clientSecret: creds.clientSecret,
            ...(creds.oauth1ClientId === null || creds.oauth1ClientSecret === null
              ? {}
              : { oauth1: { clientId: creds.oauth1ClientId, clientSecret: creds.oauth1ClientSecret } })
          },
          endpoints: {
            authBaseUrl: creds.authBaseUrl ?? defaults.authBaseUrl,
            tokenBaseUrl: creds.tokenBaseUrl ?? defaults.tokenBaseUrl,
            apiBaseUrl: creds.apiBaseUrl ?? defaults.apiBaseUrl,
            oauthPath: oauthPathOf(provider)
          },
          scopes: creds.scopes === null ? adapter.defaultScopes : splitScopes(creds.scopes),
          redirectUrlPrefixes: creds.redirectUrlPrefixes,
          webhookVerificationCode: creds.webhookVerificationCode,
          webhookSigningKeys: null
        } satisfies ResolvedProvider
      })

    return { resolve, sandboxPath, sandboxCredentials, sandboxEndpoints, sandboxVerificationCode } as const
  })
}) {}
