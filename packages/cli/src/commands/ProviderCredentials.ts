/**
 * `pulsebridge provider-credentials`: set an app's credentials at a provider (the secret stored
 * encrypted, never printed, never audited) and list them. A change is audited as made by the CLI.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { BadRequest } from "@pulsebridge/domain"
import { adapterFor, ProviderRegistry } from "@pulsebridge/providers"
import { Audit, byActor, ProviderCredentials } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { printResult } from "../Output.js"
import { appId, json } from "./Options.js"
import { cli, requireApp, withServices } from "./Runtime.js"

const providerOption = Options.choice("provider", ["Fitbit", "Garmin", "WHOOP", "Dexcom"] as const).pipe(
  Options.withDescription("The provider")
)

const providerCredentialsSet = Command.make(
  "set",
  {
    app: appId,
    provider: providerOption,
    clientId: Options.text("client-id").pipe(Options.withDescription("Client id (Garmin OAuth 1.0a: consumer key)")),
    clientSecret: Options.redacted("client-secret").pipe(
      Options.withDescription("Client secret (Garmin OAuth 1.0a: consumer secret); stored encrypted, never printed")
    ),
    authType: Options.choice("auth-type", ["OAuth1", "OAuth2"] as const).pipe(
      Options.optional,
      Options.withDescription(
        "Which OAuth the credentials are for (default: the provider's own). Garmin: OAuth2 once Garmin has " +
          "converted the app; new users then connect with OAuth 2.0 and OAuth 1.0a connections are exchanged"
      )
    ),
    oauth1ClientId: Options.text("oauth1-client-id").pipe(
      Options.optional,
      Options.withDescription(
        "With --auth-type OAuth2: the OAuth 1.0a consumer key still signing OAuth 1.0a connections " +
          "(default: the OAuth 1.0a credentials these replace)"
      )
    ),
    oauth1ClientSecret: Options.redacted("oauth1-client-secret").pipe(
      Options.optional,
      Options.withDescription("With --oauth1-client-id: its consumer secret; stored encrypted, never printed")
    ),
    scopes: Options.text("scopes").pipe(Options.optional, Options.withDescription("Scopes, space or comma separated")),
    authBaseUrl: Options.text("auth-base-url").pipe(Options.optional),
    tokenBaseUrl: Options.text("token-base-url").pipe(Options.optional),
    apiBaseUrl: Options.text("api-base-url").pipe(Options.optional),
    redirectPrefixes: Options.text("redirect-url-prefix").pipe(
      Options.repeated,
      Options.withDescription("Allowed prefix of connect-session redirect URLs (repeatable)")
    ),
    verificationCode: Options.text("verification-code").pipe(
      Options.optional,
      Options.withDescription(
        "Fitbit: the Authorization value of the Google Health API subscriber (its endpointAuthorization.secret)"
      )
    ),
    json
  },
  (input) =>
    Effect.gen(function*() {
      const id = yield* requireApp(input.app)
      const registry = yield* ProviderRegistry
      const authType = Option.getOrUndefined(input.authType)
      if (authType !== undefined && Option.isSome(registry.find(input.provider))) {
        const plugin = registry.plugin(input.provider)
        if (adapterFor(plugin, authType) === undefined) {
          return yield* new BadRequest({ message: `${input.provider} does not accept ${authType} credentials` })
        }
      }
      if (Option.isSome(input.oauth1ClientId) !== Option.isSome(input.oauth1ClientSecret)) {
        return yield* new BadRequest({ message: "--oauth1-client-id and --oauth1-client-secret go together" })
      }
      const store = yield* ProviderCredentials
      const audit = yield* Audit
      const change = Effect.gen(function*() {
        const replaced = (yield* store.list(id)).some((entry) => entry.provider === input.provider)
        yield* store.set(id, input.provider, {
          clientId: input.clientId,
          clientSecret: input.clientSecret,
          authType,
          oauth1ClientId: Option.getOrUndefined(input.oauth1ClientId),
          oauth1ClientSecret: Option.getOrUndefined(input.oauth1ClientSecret),
          scopes: Option.getOrUndefined(input.scopes),
          authBaseUrl: Option.getOrUndefined(input.authBaseUrl),
          tokenBaseUrl: Option.getOrUndefined(input.tokenBaseUrl),
          apiBaseUrl: Option.getOrUndefined(input.apiBaseUrl),
          redirectUrlPrefixes: input.redirectPrefixes,
          webhookVerificationCode: Option.getOrUndefined(input.verificationCode)
        })
        return replaced
      })
      // What the portal records of the same change, and the fields only the CLI sets; never a secret.
      yield* audit.recorded(change, (replaced) =>
        byActor(cli, {
          action: replaced ? "providerCredentials.replace" : "providerCredentials.create",
          targetType: "provider",
          targetId: input.provider,
          appId: id,
          detail: {
            provider: input.provider,
            clientId: input.clientId,
            authType: authType ?? null,
            scopes: Option.getOrNull(input.scopes),
            oauth1ClientId: Option.getOrNull(input.oauth1ClientId),
            webhookVerificationCode: Option.isSome(input.verificationCode) ? "set" : "unchanged-or-none",
            authBaseUrl: Option.getOrNull(input.authBaseUrl),
            tokenBaseUrl: Option.getOrNull(input.tokenBaseUrl),
            apiBaseUrl: Option.getOrNull(input.apiBaseUrl),
            redirectUrlPrefixes: input.redirectPrefixes
          }
        }))
      yield* printResult(
        input.json,
        {
          app: id,
          provider: input.provider,
          clientId: input.clientId,
          ...(authType === undefined ? {} : { authType })
        },
        () =>
          `Stored ${input.provider} ${authType === undefined ? "" : `${authType} `}credentials for app ${id} ` +
          `(client id ${input.clientId}).`
      )
    }).pipe(withServices(input.json))
).pipe(Command.withDescription("Set an app's credentials at a provider (the secret is stored encrypted)"))

const providerCredentialsList = Command.make("list", { app: appId, json }, ({ app, json }) =>
  Effect.gen(function*() {
    const id = yield* requireApp(app)
    const rows = yield* Effect.flatMap(ProviderCredentials, (store) => store.list(id))
    const items = rows.map((row) => ({
      provider: row.provider,
      clientId: row.clientId,
      authType: row.authType,
      oauth1ClientId: row.oauth1ClientId,
      scopes: row.scopes,
      authBaseUrl: row.authBaseUrl,
      tokenBaseUrl: row.tokenBaseUrl,
      apiBaseUrl: row.apiBaseUrl,
      redirectUrlPrefixes: row.redirectUrlPrefixes,
      updatedAt: row.updatedAt.toISOString()
    }))
    yield* printResult(
      json,
      { providerCredentials: items },
      () =>
        items.length === 0
          ? "No provider credentials."
          : items.map((item) =>
            `${item.provider}  ${item.authType ?? "(provider's own auth type)"}  client id ${item.clientId}  ` +
            `scopes ${item.scopes ?? "(defaults)"}`
          )
            .join("\n")
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("List an app's provider credentials (never the secrets)"))

export const providerCredentials = Command.make("provider-credentials").pipe(
  Command.withDescription("Manage an app's credentials at the providers"),
  Command.withSubcommands([providerCredentialsSet, providerCredentialsList])
)
