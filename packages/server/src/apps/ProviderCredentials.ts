/**
 * Each app's credentials at each provider (client id and secret, or Garmin's consumer key and
 * secret), its scopes, optional base-URL overrides and allowed redirect URL prefixes. Secrets
 * are sealed with the `SecretBox` and never listed; the SQL is in `ProviderCredentialsRepo`.
 */
import type { AppId, Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { SecretBox } from "../platform/SecretBox.js"
import type { ProviderCredentialsListing } from "./ProviderCredentialsRepo.js"
import { ProviderCredentialsRepo } from "./ProviderCredentialsRepo.js"

export { ProviderCredentialsListing } from "./ProviderCredentialsRepo.js"

export interface ProviderCredentialsInput {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted
  readonly scopes?: string | undefined
  readonly authBaseUrl?: string | undefined
  readonly tokenBaseUrl?: string | undefined
  readonly apiBaseUrl?: string | undefined
  readonly redirectUrlPrefixes?: ReadonlyArray<string> | undefined
  /** Fitbit: the Authorization value the Google Health API subscriber sends (its `endpointAuthorization.secret`). */
  readonly webhookVerificationCode?: string | undefined
}

export interface StoredProviderCredentials extends ProviderCredentialsListing {
  readonly clientSecret: Redacted.Redacted
}

export class ProviderCredentials extends Effect.Service<ProviderCredentials>()(
  "@pulsebridge/server/ProviderCredentials",
  {
    effect: Effect.gen(function*() {
      const repo = yield* ProviderCredentialsRepo
      const box = yield* SecretBox
      return {
        set: Effect.fn("ProviderCredentials.set")(
          function*(appId: AppId, provider: Provider, input: ProviderCredentialsInput) {
            yield* repo.upsert(appId, provider, {
              clientId: input.clientId,
              clientSecretSealed: box.seal(input.clientSecret),
              scopes: input.scopes ?? null,
              authBaseUrl: input.authBaseUrl ?? null,
              tokenBaseUrl: input.tokenBaseUrl ?? null,
              apiBaseUrl: input.apiBaseUrl ?? null,
              redirectUrlPrefixes: input.redirectUrlPrefixes ?? [],
              webhookVerificationCode: input.webhookVerificationCode ?? null
            })
          }
        ),

        list: Effect.fn("ProviderCredentials.list")(function*(appId: AppId) {
          return yield* repo.listOfApp(appId)
        }),

        /** The app's credentials at the provider with the secret opened, or none. */
        get: Effect.fn("ProviderCredentials.get")(function*(appId: AppId, provider: Provider) {
          const stored = yield* repo.find(appId, provider)
          if (Option.isNone(stored)) return Option.none<StoredProviderCredentials>()
          const { clientSecretSealed, ...listing } = stored.value
          const clientSecret = yield* Effect.orDie(box.open(clientSecretSealed))
          return Option.some<StoredProviderCredentials>({ ...listing, clientSecret })
        })
      } as const
    }),
    dependencies: [ProviderCredentialsRepo.Default]
  }
) {}
