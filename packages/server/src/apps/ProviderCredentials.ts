/**
 * Each app's credentials at each provider (client id and secret, or Garmin's consumer key and
 * secret), their kind, its scopes, optional base-URL overrides and allowed redirect URL prefixes.
 * Secrets are sealed with the `SecretBox` and never listed; the SQL is in `ProviderCredentialsRepo`.
 *
 * The kind (`authType`) says which OAuth the credentials are for; unset, the provider's own
 * (its catalogue `authType`). A provider that accepts both (Garmin: OAuth 1.0a, and OAuth 2.0
 * since its move) then connects new users with the kind set, and an app that moves from OAuth
 * 1.0a to OAuth 2.0 keeps its OAuth 1.0a consumer key and secret (`oauth1ClientId`,
 * `oauth1ClientSecret`) for the connections still holding OAuth 1.0a tokens: given explicitly, or
 * carried over from the OAuth 1.0a credentials the new ones replace.
 */
import type { AppId, Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { SecretBox } from "../platform/SecretBox.js"
import { traced } from "../platform/Traced.js"
import type { CredentialKind, ProviderCredentialsListing } from "./ProviderCredentialsRepo.js"
import { ProviderCredentialsRepo } from "./ProviderCredentialsRepo.js"

export { CredentialKind, ProviderCredentialsListing } from "./ProviderCredentialsRepo.js"

export interface ProviderCredentialsInput {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted
  /** Which OAuth the credentials are for; omitted: the provider's own. */
  readonly authType?: CredentialKind | undefined
  /** OAuth 2.0 credentials: the app's OAuth 1.0a consumer key and secret, kept for its OAuth 1.0a connections. */
  readonly oauth1ClientId?: string | undefined
  readonly oauth1ClientSecret?: Redacted.Redacted | undefined
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
  readonly oauth1ClientSecret: Redacted.Redacted | null
}

export class ProviderCredentials extends Effect.Service<ProviderCredentials>()(
  "@pulsebridge/server/ProviderCredentials",
  {
    effect: Effect.gen(function*() {
      const repo = yield* ProviderCredentialsRepo
      const box = yield* SecretBox
      return {
        set: traced("ProviderCredentials.set")(
          function*(appId: AppId, provider: Provider, input: ProviderCredentialsInput) {
            const authType = input.authType ?? null
            let oauth1: { readonly id: string; readonly secretSealed: string } | null = null
            if (authType === "OAuth2") {
              if (input.oauth1ClientId !== undefined && input.oauth1ClientSecret !== undefined) {
                oauth1 = { id: input.oauth1ClientId, secretSealed: box.seal(input.oauth1ClientSecret) }
              } else {
                // Moving from OAuth 1.0a: what is replaced still signs the OAuth 1.0a connections.
                const before = yield* repo.find(appId, provider)
                if (Option.isSome(before)) {
                  const previous = before.value
                  oauth1 = previous.authType !== "OAuth2"
                    ? { id: previous.clientId, secretSealed: previous.clientSecretSealed }
                    : previous.oauth1ClientId === null || previous.oauth1ClientSecretSealed === null
                    ? null
                    : { id: previous.oauth1ClientId, secretSealed: previous.oauth1ClientSecretSealed }
                }
              }
            }
            yield* repo.upsert(appId, provider, {
              clientId: input.clientId,
              clientSecretSealed: box.seal(input.clientSecret),
              authType,
              oauth1ClientId: oauth1?.id ?? null,
              oauth1ClientSecretSealed: oauth1?.secretSealed ?? null,
              scopes: input.scopes ?? null,
              authBaseUrl: input.authBaseUrl ?? null,
              tokenBaseUrl: input.tokenBaseUrl ?? null,
              apiBaseUrl: input.apiBaseUrl ?? null,
              redirectUrlPrefixes: input.redirectUrlPrefixes ?? [],
              webhookVerificationCode: input.webhookVerificationCode ?? null
            })
          }
        ),

        list: traced("ProviderCredentials.list")(function*(appId: AppId) {
          return yield* repo.listOfApp(appId)
        }),

        /** The app's credentials at the provider with the secret opened, or none. */
        get: traced("ProviderCredentials.get")(function*(appId: AppId, provider: Provider) {
          const stored = yield* repo.find(appId, provider)
          if (Option.isNone(stored)) return Option.none<StoredProviderCredentials>()
          const { clientSecretSealed, oauth1ClientSecretSealed, ...listing } = stored.value
          const clientSecret = yield* Effect.orDie(box.open(clientSecretSealed))
          const oauth1ClientSecret = oauth1ClientSecretSealed === null
            ? null
            : yield* Effect.orDie(box.open(oauth1ClientSecretSealed))
          return Option.some<StoredProviderCredentials>({ ...listing, clientSecret, oauth1ClientSecret })
        })
      } as const
    }),
    dependencies: [ProviderCredentialsRepo.Default]
  }
) {}
