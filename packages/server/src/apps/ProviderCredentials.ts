/**
 * Each app's credentials at each provider (client id and secret, or Garmin's consumer key and
 * secret), its scopes, optional base-URL overrides and allowed redirect URL prefixes. Secrets
 * are sealed with the `SecretBox` and never listed.
 */
import { SqlClient } from "@effect/sql"
import type { AppId, Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { SecretBox } from "../platform/SecretBox.js"

export interface ProviderCredentialsInput {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted
  readonly scopes?: string | undefined
  readonly authBaseUrl?: string | undefined
  readonly tokenBaseUrl?: string | undefined
  readonly apiBaseUrl?: string | undefined
  readonly redirectUrlPrefixes?: ReadonlyArray<string> | undefined
  /** Fitbit: the subscriber verification code shown in the app's settings at Fitbit. */
  readonly webhookVerificationCode?: string | undefined
}

/** What may be shown of stored credentials: everything but the secret. */
export interface ProviderCredentialsListing {
  readonly provider: Provider
  readonly clientId: string
  readonly scopes: string | null
  readonly authBaseUrl: string | null
  readonly tokenBaseUrl: string | null
  readonly apiBaseUrl: string | null
  readonly redirectUrlPrefixes: ReadonlyArray<string>
  readonly webhookVerificationCode: string | null
  readonly updatedAt: Date
}

export interface StoredProviderCredentials extends ProviderCredentialsListing {
  readonly clientSecret: Redacted.Redacted
}

interface Row extends ProviderCredentialsListing {
  readonly clientSecretSealed: string
}

export class ProviderCredentials extends Effect.Service<ProviderCredentials>()(
  "@pulsebridge/server/ProviderCredentials",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const box = yield* SecretBox
      const listingColumns = sql.literal(
        "provider, client_id, scopes, auth_base_url, token_base_url, api_base_url, redirect_url_prefixes, " +
          "webhook_verification_code, updated_at"
      )
      return {
        set: (appId: AppId, provider: Provider, input: ProviderCredentialsInput) =>
          sql`
            insert into provider_credentials (
              app_id, provider, client_id, client_secret_sealed, scopes,
              auth_base_url, token_base_url, api_base_url, redirect_url_prefixes, webhook_verification_code
            ) values (
              ${appId}, ${provider}, ${input.clientId}, ${box.seal(input.clientSecret)}, ${input.scopes ?? null},
              ${input.authBaseUrl ?? null}, ${input.tokenBaseUrl ?? null}, ${input.apiBaseUrl ?? null},
              string_to_array(${(input.redirectUrlPrefixes ?? []).join("\n")}, E'\\n'),
              ${input.webhookVerificationCode ?? null}
            )
            on conflict (app_id, provider) do update set
              client_id = excluded.client_id,
              client_secret_sealed = excluded.client_secret_sealed,
              scopes = excluded.scopes,
              auth_base_url = excluded.auth_base_url,
              token_base_url = excluded.token_base_url,
              api_base_url = excluded.api_base_url,
              redirect_url_prefixes = excluded.redirect_url_prefixes,
              webhook_verification_code = excluded.webhook_verification_code,
              updated_at = now()
          `.pipe(Effect.asVoid, Effect.orDie),

        list: (appId: AppId) =>
          sql<ProviderCredentialsListing>`
            select ${listingColumns} from provider_credentials where app_id = ${appId} order by provider
          `.pipe(Effect.orDie),

        get: (appId: AppId, provider: Provider) =>
          Effect.gen(function*() {
            const rows = yield* sql<Row>`
              select ${listingColumns}, client_secret_sealed
              from provider_credentials where app_id = ${appId} and provider = ${provider}
            `.pipe(Effect.orDie)
            const row = rows[0]
            if (row === undefined) return Option.none<StoredProviderCredentials>()
            const { clientSecretSealed, ...listing } = row
            const clientSecret = yield* Effect.orDie(box.open(clientSecretSealed))
            return Option.some<StoredProviderCredentials>({ ...listing, clientSecret })
          })
      } as const
    })
  }
) {}
