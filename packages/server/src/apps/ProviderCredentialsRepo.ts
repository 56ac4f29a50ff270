/**
 * Every statement on the `provider_credentials` table: one row per app and provider, written by
 * an upsert. The client secret arrives here already sealed and leaves sealed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AppId, Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The kind of credentials: which OAuth the app speaks with the provider. */
export const CredentialKind = Schema.Literal("OAuth1", "OAuth2")
export type CredentialKind = typeof CredentialKind.Type

/** What may be shown of stored credentials: everything but the secrets. */
export const ProviderCredentialsListing = Schema.Struct({
  provider: Provider,
  clientId: Schema.String,
  /** null: the provider's own kind (its catalogue `authType`). */
  authType: Schema.NullOr(CredentialKind),
  /** The OAuth 1.0a consumer key kept beside OAuth 2.0 credentials, if any. */
  oauth1ClientId: Schema.NullOr(Schema.String),
  scopes: Schema.NullOr(Schema.String),
  authBaseUrl: Schema.NullOr(Schema.String),
  tokenBaseUrl: Schema.NullOr(Schema.String),
  apiBaseUrl: Schema.NullOr(Schema.String),
  redirectUrlPrefixes: Schema.Array(Schema.String),
  webhookVerificationCode: Schema.NullOr(Schema.String),
  updatedAt: Schema.DateFromSelf
})
export type ProviderCredentialsListing = typeof ProviderCredentialsListing.Type

/** The stored row: the listing and the sealed secret. */
export const SealedProviderCredentials = Schema.Struct({
  ...ProviderCredentialsListing.fields,
  clientSecretSealed: Schema.String,
  oauth1ClientSecretSealed: Schema.NullOr(Schema.String)
})
export type SealedProviderCredentials = typeof SealedProviderCredentials.Type

/** What an operator sets, the secret sealed. */
export interface SealedProviderCredentialsInput {
  readonly clientId: string
  readonly clientSecretSealed: string
  readonly authType: CredentialKind | null
  readonly oauth1ClientId: string | null
  readonly oauth1ClientSecretSealed: string | null
  readonly scopes: string | null
  readonly authBaseUrl: string | null
  readonly tokenBaseUrl: string | null
  readonly apiBaseUrl: string | null
  readonly redirectUrlPrefixes: ReadonlyArray<string>
  readonly webhookVerificationCode: string | null
}

export class ProviderCredentialsRepo extends Effect.Service<ProviderCredentialsRepo>()(
  "@pulsebridge/server/ProviderCredentialsRepo",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const listingColumns = sql.literal(
        "provider, client_id, auth_type, oauth1_client_id, scopes, auth_base_url, token_base_url, api_base_url, " +
          "redirect_url_prefixes, webhook_verification_code, updated_at"
      )

      const listOfApp = SqlSchema.findAll({
        Request: AppId,
        Result: ProviderCredentialsListing,
        execute: (appId) =>
          sql`select ${listingColumns} from provider_credentials where app_id = ${appId} order by provider`
      })

      const find = SqlSchema.findOne({
        Request: Schema.Struct({ appId: AppId, provider: Provider }),
        Result: SealedProviderCredentials,
        execute: ({ appId, provider }) =>
          sql`
            select ${listingColumns}, client_secret_sealed, oauth1_client_secret_sealed
            from provider_credentials where app_id = ${appId} and provider = ${provider}
          `
      })

      return {
        /** Stores the app's credentials at the provider, replacing any earlier ones. */
        upsert: (appId: AppId, provider: Provider, input: SealedProviderCredentialsInput) =>
          sql`
            insert into provider_credentials (
              app_id, provider, client_id, client_secret_sealed, auth_type, oauth1_client_id,
              oauth1_client_secret_sealed, scopes,
              auth_base_url, token_base_url, api_base_url, redirect_url_prefixes, webhook_verification_code
            ) values (
              ${appId}, ${provider}, ${input.clientId}, ${input.clientSecretSealed}, ${input.authType},
              ${input.oauth1ClientId}, ${input.oauth1ClientSecretSealed}, ${input.scopes},
              ${input.authBaseUrl}, ${input.tokenBaseUrl}, ${input.apiBaseUrl},
              string_to_array(${input.redirectUrlPrefixes.join("\n")}, E'\\n'),
              ${input.webhookVerificationCode}
            )
            on conflict (app_id, provider) do update set
              client_id = excluded.client_id,
              client_secret_sealed = excluded.client_secret_sealed,
              auth_type = excluded.auth_type,
              oauth1_client_id = excluded.oauth1_client_id,
              oauth1_client_secret_sealed = excluded.oauth1_client_secret_sealed,
              scopes = excluded.scopes,
              auth_base_url = excluded.auth_base_url,
              token_base_url = excluded.token_base_url,
              api_base_url = excluded.api_base_url,
              redirect_url_prefixes = excluded.redirect_url_prefixes,
              webhook_verification_code = excluded.webhook_verification_code,
              updated_at = now()
          `.pipe(Effect.asVoid, Effect.orDie),

        /** The app's credentials at every provider, without the secrets, by provider. */
        listOfApp: (appId: AppId) => listOfApp(appId).pipe(Effect.orDie),

        find: (appId: AppId, provider: Provider) => find({ appId, provider }).pipe(Effect.orDie)
      } as const
    })
  }
) {}
