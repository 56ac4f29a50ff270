/**
 * `pulsebridge provider-credentials`: set an app's credentials at a provider (the secret stored
 * encrypted, never printed) and list them.
 */
import { Command, Options } from "@effect/cli"
import { ProviderCredentials } from "@pulsebridge/server/apps/ProviderCredentials"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { printResult } from "../Output.js"
import { appId, json } from "./Options.js"
import { requireApp, withServices } from "./Runtime.js"

const providerOption = Options.choice("provider", ["Fitbit", "Garmin", "WHOOP", "Dexcom"] as const).pipe(
  Options.withDescription("The provider")
)

const providerCredentialsSet = Command.make(
  "set",
  {
    app: appId,
    provider: providerOption,
    clientId: Options.text("client-id").pipe(Options.withDescription("Client id (Garmin: consumer key)")),
    clientSecret: Options.redacted("client-secret").pipe(
      Options.withDescription("Client secret (Garmin: consumer secret); stored encrypted, never printed")
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
      const store = yield* ProviderCredentials
      yield* store.set(id, input.provider, {
        clientId: input.clientId,
        clientSecret: input.clientSecret,
        scopes: Option.getOrUndefined(input.scopes),
        authBaseUrl: Option.getOrUndefined(input.authBaseUrl),
        tokenBaseUrl: Option.getOrUndefined(input.tokenBaseUrl),
        apiBaseUrl: Option.getOrUndefined(input.apiBaseUrl),
        redirectUrlPrefixes: input.redirectPrefixes,
        webhookVerificationCode: Option.getOrUndefined(input.verificationCode)
      })
      yield* printResult(
        input.json,
        { app: id, provider: input.provider, clientId: input.clientId },
        () => `Stored ${input.provider} credentials for app ${id} (client id ${input.clientId}).`
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
          : items.map((item) => `${item.provider}  client id ${item.clientId}  scopes ${item.scopes ?? "(defaults)"}`)
            .join("\n")
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("List an app's provider credentials (never the secrets)"))

export const providerCredentials = Command.make("provider-credentials").pipe(
  Command.withDescription("Manage an app's credentials at the providers"),
  Command.withSubcommands([providerCredentialsSet, providerCredentialsList])
)
