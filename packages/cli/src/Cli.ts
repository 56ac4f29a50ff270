/**
 * The command tree of `pulsebridge`, the operator CLI. Its commands run on the server's own configuration,
 * database (attached to a running server's embedded database when one holds DATA_DIR) and services, so the
 * CLI and the API can never disagree about what an app, key or user is.
 */
import { Args, Command, Options } from "@effect/cli"
import { HttpServer, OpenApi } from "@effect/platform"
import type { Permission } from "@pulsebridge/domain"
import {
  allPermissions,
  Api,
  BadRequest,
  CreateUserPayload,
  NotFound,
  UpdateUserPayload,
  User
} from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import { DataLive } from "@pulsebridge/server/App"
import type { ApiKeyRecord, App } from "@pulsebridge/server/apps/Apps"
import { Apps } from "@pulsebridge/server/apps/Apps"
import { ProviderCredentials } from "@pulsebridge/server/apps/ProviderCredentials"
import { DatabaseLive } from "@pulsebridge/server/platform/Database"
import { ServerConfig } from "@pulsebridge/server/platform/ServerConfig"
import { Users } from "@pulsebridge/server/users/Users"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { withContractErrors } from "./ContractErrors.js"
import { consoleToStderr, printJson, printResult, quietLogs, reportFailure } from "./Output.js"

const ServicesFromEnv = DataLive.pipe(
  Layer.provideMerge(ProviderRegistry.Default),
  Layer.provideMerge(DatabaseLive({ attach: true })),
  Layer.provide(ServerConfig.layer)
)

/** Runs a command body over the services, with its output rules: quiet logs, and failures printed once. */
const withServices = (json: boolean) =>
<A, E>(
  effect: Effect.Effect<A, E, Apps | Users | ProviderCredentials>
) => effect.pipe(withContractErrors, Effect.provide(ServicesFromEnv), quietLogs, reportFailure(json))

const json = Options.boolean("json").pipe(
  Options.withDescription("Print exactly one JSON object on stdout (errors as {\"error\": {\"_tag\", \"message\"}})")
)

const appId = Options.text("app").pipe(Options.withDescription("Id of the app"))

const userId = Args.text({ name: "USER_ID" }).pipe(Args.withDescription("Id of the user"))

const locale = Options.text("locale").pipe(Options.optional, Options.withDescription("Language tag, e.g. en-US"))

const timezone = Options.text("timezone").pipe(
  Options.optional,
  Options.withDescription("IANA time zone name, e.g. Europe/Berlin")
)

const metadata = Options.text("metadata").pipe(
  Options.optional,
  Options.withDescription("A JSON object of the app's own data (at most 16 KiB); replaces the stored metadata")
)

const optionNames: Record<string, string> = {
  externalUserId: "--external-user-id",
  locale: "--locale",
  timezone: "--timezone",
  metadata: "--metadata"
}

// An optional field fails both members of its `A | undefined` union; the first issue of a field is the one to show.
const formatParseError = (error: ParseResult.ParseError): string => {
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const key = issue.path.map(String).join(".")
    if (seen.has(key)) continue
    seen.add(key)
    const field = issue.path[0]
    const name = field === undefined ? undefined : (optionNames[String(field)] ?? String(field))
    lines.push(name === undefined ? issue.message : `invalid ${name}: ${issue.message}`)
  }
  return lines.join("; ")
}

/** Decodes CLI input with the API's own payload schema, so the CLI accepts exactly what the API accepts. */
const decodeInput = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Effect.mapError((error) => new BadRequest({ message: formatParseError(error) }))
  )

const parseMetadata = (text: Option.Option<string>) =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (raw) =>
      Effect.try({
        try: () => JSON.parse(raw) as unknown,
        catch: (cause) => new BadRequest({ message: `--metadata must be a JSON object: ${(cause as Error).message}` })
      })
  })

/** The fields that were given, as an object without keys for the absent ones (as a JSON body would be). */
const given = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))

const parsePermissions = (text: Option.Option<string>) =>
  Option.match(text, {
    onNone: () => Effect.succeed(allPermissions),
    onSome: (raw) => {
      const allowed = allPermissions.join(", ")
      const names = raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
      if (names.length === 0) {
        return Effect.fail(new BadRequest({ message: `--permissions must name at least one of: ${allowed}` }))
      }
      const unknown = names.filter((name) => !(allPermissions as ReadonlyArray<string>).includes(name))
      if (unknown.length > 0) {
        return Effect.fail(
          new BadRequest({
            message: `unknown permission ${unknown.map((u) => `"${u}"`).join(", ")}; allowed: ${allowed}`
          })
        )
      }
      return Effect.succeed(allPermissions.filter((p) => names.includes(p)))
    }
  })

/** The app of `--app`; the users service trusts its app id, so an unknown one is refused here. */
const requireApp = (id: string) =>
  Effect.flatMap(Apps, (apps) => apps.get(id)).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new NotFound({ message: `no app with id ${id}` })),
      onSome: (app) => Effect.succeed(app.id)
    }))
  )

const appJson = (app: App) => ({ id: app.id, name: app.name, createdAt: app.createdAt.toISOString() })

const apiKeyJson = (key: ApiKeyRecord) => ({
  id: key.id,
  prefix: key.prefix,
  permissions: key.permissions,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt === null ? null : key.revokedAt.toISOString()
})

/** The user as the API's JSON has it. */
const userJson = (user: User) => Schema.encode(User)(user).pipe(Effect.orDie)

const userText = (user: typeof User.Encoded) =>
  [
    `User ${user.id} (${user.status})`,
    `  externalUserId: ${user.externalUserId}`,
    `  locale:         ${user.locale}`,
    `  timezone:       ${user.timezone}`,
    `  metadata:       ${JSON.stringify(user.metadata)}`,
    `  createdAt:      ${user.createdAt}`,
    `  updatedAt:      ${user.updatedAt}`
  ].join("\n")

const appsCreate = Command.make(
  "create",
  { name: Options.text("name").pipe(Options.withDescription("Name of the app")), json },
  ({ json, name }) =>
    Effect.gen(function*() {
      const created = yield* Effect.flatMap(Apps, (apps) => apps.create(name))
      yield* printResult(
        json,
        { app: appJson(created.app), apiKey: created.apiKey },
        () =>
          [
            `Created app "${created.app.name}" (id ${created.app.id}).`,
            "Its API key is shown only this once; keep it:",
            `  ${created.apiKey}`
          ].join("\n")
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Create an app and its first API key (with every permission)"))

const appsList = Command.make("list", { json }, ({ json }) =>
  Effect.gen(function*() {
    const apps = yield* Effect.flatMap(Apps, (apps) => apps.list)
    yield* printResult(
      json,
      { apps: apps.map(appJson) },
      () =>
        apps.length === 0
          ? "No apps."
          : apps.map((app) => `${app.id}  ${app.createdAt.toISOString()}  ${app.name}`).join("\n")
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("List the apps"))

const apps = Command.make("apps").pipe(
  Command.withDescription("Manage apps (the tenants)"),
  Command.withSubcommands([appsCreate, appsList])
)

const apiKeysCreate = Command.make(
  "create",
  {
    app: appId,
    permissions: Options.text("permissions").pipe(
      Options.optional,
      Options.withDescription(`Comma-separated permissions (default: ${allPermissions.join(",")})`)
    ),
    json
  },
  ({ app, json, permissions }) =>
    Effect.gen(function*() {
      const granted: ReadonlyArray<Permission> = yield* parsePermissions(permissions)
      const key = yield* Effect.flatMap(Apps, (apps) => apps.createApiKey(app, granted))
      yield* printResult(
        json,
        { id: key.id, apiKey: key.apiKey, prefix: key.prefix, permissions: key.permissions },
        () =>
          [
            `Created API key ${key.id} (${key.permissions.join(", ")}).`,
            "It is shown only this once; keep it:",
            `  ${key.apiKey}`
          ].join("\n")
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Create an API key of an app"))

const apiKeysList = Command.make("list", { app: appId, json }, ({ app, json }) =>
  Effect.gen(function*() {
    const keys = yield* Effect.flatMap(Apps, (apps) => apps.listApiKeys(app))
    yield* printResult(
      json,
      { apiKeys: keys.map(apiKeyJson) },
      () =>
        keys.length === 0
          ? "No API keys."
          : keys.map((key) =>
            [
              key.id,
              `${key.prefix}...`,
              key.permissions.join(","),
              `created ${key.createdAt.toISOString()}`,
              key.revokedAt === null ? "active" : `revoked ${key.revokedAt.toISOString()}`
            ].join("  ")
          ).join("\n")
    )
  }).pipe(withServices(json))).pipe(
    Command.withDescription("List the API keys of an app (prefixes only; keys are not stored)")
  )

const apiKeysRevoke = Command.make(
  "revoke",
  { id: Args.text({ name: "KEY_ID" }).pipe(Args.withDescription("Id of the API key")), json },
  ({ id, json }) =>
    Effect.gen(function*() {
      const key = yield* Effect.flatMap(Apps, (apps) => apps.revokeApiKey(id))
      const revokedAt = (key.revokedAt ?? new Date()).toISOString()
      yield* printResult(json, { id: key.id, revokedAt }, () => `Revoked API key ${key.id} (at ${revokedAt}).`)
    }).pipe(withServices(json))
).pipe(Command.withDescription("Revoke an API key; revoking twice is harmless"))

const apiKeys = Command.make("api-keys").pipe(
  Command.withDescription("Manage the API keys of an app"),
  Command.withSubcommands([apiKeysCreate, apiKeysList, apiKeysRevoke])
)

const usersCreate = Command.make(
  "create",
  {
    app: appId,
    externalUserId: Options.text("external-user-id").pipe(
      Options.withDescription("The app's own id of the user; unique within the app")
    ),
    locale,
    timezone,
    metadata,
    json
  },
  (args) =>
    Effect.gen(function*() {
      const id = yield* requireApp(args.app)
      const payload = yield* decodeInput(
        CreateUserPayload,
        given({
          externalUserId: args.externalUserId,
          locale: Option.getOrUndefined(args.locale),
          timezone: Option.getOrUndefined(args.timezone),
          metadata: yield* parseMetadata(args.metadata)
        })
      )
      const { created, token, user } = yield* Effect.flatMap(Users, (users) => users.create(id, payload))
      const encoded = yield* userJson(user)
      yield* printResult(
        args.json,
        { user: encoded, token, created },
        () =>
          [
            created ? "Created user:" : "The user existed (now Active); a fresh token was issued:",
            userText(encoded),
            "Its token is shown only this once; keep it:",
            `  ${token}`
          ].join("\n")
      )
    }).pipe(withServices(args.json))
).pipe(Command.withDescription("Create a user, or find the one with this external id; issues a fresh token"))

const usersGet = Command.make("get", { app: appId, id: userId, json }, ({ app, id, json }) =>
  Effect.gen(function*() {
    const appId = yield* requireApp(app)
    const encoded = yield* Effect.flatMap(Users, (users) => users.get(appId, id)).pipe(Effect.flatMap(userJson))
    yield* printResult(json, encoded, () => userText(encoded))
  }).pipe(withServices(json))).pipe(Command.withDescription("Show a user"))

const usersFind = Command.make(
  "find",
  {
    app: appId,
    externalUserId: Options.text("external-user-id").pipe(Options.withDescription("The app's own id of the user")),
    json
  },
  ({ app, externalUserId, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      const encoded = yield* Effect.flatMap(Users, (users) => users.findByExternalId(appId, externalUserId)).pipe(
        Effect.flatMap(userJson)
      )
      yield* printResult(json, encoded, () => userText(encoded))
    }).pipe(withServices(json))
).pipe(Command.withDescription("Look a user up by the app's own id"))

const usersUpdate = Command.make(
  "update",
  { app: appId, id: userId, locale, timezone, metadata, json },
  (args) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(args.app)
      const payload = yield* decodeInput(
        UpdateUserPayload,
        given({
          locale: Option.getOrUndefined(args.locale),
          timezone: Option.getOrUndefined(args.timezone),
          metadata: yield* parseMetadata(args.metadata)
        })
      )
      const encoded = yield* Effect.flatMap(Users, (users) => users.update(appId, args.id, payload)).pipe(
        Effect.flatMap(userJson)
      )
      yield* printResult(args.json, encoded, () => userText(encoded))
    }).pipe(withServices(args.json))
).pipe(Command.withDescription("Update a user; --metadata replaces the stored metadata entirely"))

const usersDelete = Command.make(
  "delete",
  { app: appId, id: userId, json },
  ({ app, id, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      yield* Effect.flatMap(Users, (users) => users.softDelete(appId, id))
      yield* printResult(
        json,
        { id, status: "Inactive" },
        () => `User ${id} is now Inactive (data kept, tokens revoked).`
      )
    }).pipe(withServices(json))
).pipe(
  Command.withDescription("Soft-delete a user: it becomes Inactive, its tokens stop working, its data stays")
)

const usersRotateToken = Command.make(
  "rotate-token",
  { app: appId, id: userId, json },
  ({ app, id, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      const token = yield* Effect.flatMap(Users, (users) => users.rotateToken(appId, id))
      yield* printResult(
        json,
        { token },
        () => ["Earlier tokens are revoked. The new token is shown only this once; keep it:", `  ${token}`].join("\n")
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Revoke every token of a user and issue a new one"))

const users = Command.make("users").pipe(
  Command.withDescription("Manage the users of an app"),
  Command.withSubcommands([usersCreate, usersGet, usersFind, usersUpdate, usersDelete, usersRotateToken])
)

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
      Options.withDescription("Fitbit: the subscriber verification code from the app's settings at Fitbit")
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

const providerCredentials = Command.make("provider-credentials").pipe(
  Command.withDescription("Manage an app's credentials at the providers"),
  Command.withSubcommands([providerCredentialsSet, providerCredentialsList])
)

const migrate = Command.make(
  "migrate",
  { json },
  ({ json }) =>
    printResult(json, { migrated: true }, () => "The database is migrated.").pipe(
      Effect.provide(DatabaseLive({ attach: true }).pipe(Layer.provide(ServerConfig.layer))),
      quietLogs,
      reportFailure(json)
    )
).pipe(Command.withDescription("Apply the database migrations"))

/**
 * The server, with the simulators mounted when sandbox mode is on (`--sandbox` or `SANDBOX=true`), and the
 * meal-analyser simulator alone with `ANALYZER=sandbox` outside it. Loaded on demand: the other commands need
 * none of it (HTTP, the background runtime, the simulators).
 */
const ServerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  const { makeServeLive, ServeLive } = yield* Effect.promise(() => import("@pulsebridge/server/Main"))
  if (!config.sandbox && config.analyzer !== "sandbox") return ServeLive
  const { AnalyzerSandboxRoutesLive, SandboxRoutesLive } = yield* Effect.promise(() =>
    import("@pulsebridge/server/sandbox/SandboxRoutes")
  )
  return makeServeLive(config.sandbox ? SandboxRoutesLive : AnalyzerSandboxRoutesLive)
}))

/**
 * With `--json` the server's own text (its banner, its logs) goes to stderr and stdout gets one object saying
 * where it listens, so a supervising script learns the address without parsing the banner.
 */
const serveJson = (config: Layer.Layer<ServerConfig, unknown>) =>
  Effect.gen(function*() {
    const context = yield* consoleToStderr(Layer.build(ServerLive.pipe(Layer.provideMerge(config))))
    const settings = Context.get(context, ServerConfig)
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : settings.port
    const scheme = settings.trustProxy ? "http" : "https"
    const url = Option.getOrElse(settings.publicUrl, () => `${scheme}://localhost:${port}`).replace(/\/$/, "")
    const database = Option.isSome(settings.databaseUrl) ? "postgres" : "embedded"
    yield* printJson({ status: "running", url, port, database, pid: process.pid })
    return yield* Effect.never
  }).pipe(Effect.scoped)

const serve = Command.make(
  "serve",
  {
    sandbox: Options.boolean("sandbox").pipe(Options.withDescription("Run in sandbox mode (SANDBOX=true)")),
    json
  },
  ({ json, sandbox }) => {
    const config = sandbox ? ServerConfig.layerWith({ sandbox: true }) : ServerConfig.layer
    return (json ? serveJson(config) : Layer.launch(ServerLive.pipe(Layer.provide(config)))).pipe(
      reportFailure(json)
    )
  }
).pipe(Command.withDescription("Run the API server (what `npm start` runs)"))

const openapi = Command.make(
  "openapi",
  { json },
  ({ json }) =>
    Effect.suspend(() => printResult(json, OpenApi.fromApi(Api), () => JSON.stringify(OpenApi.fromApi(Api), null, 2)))
      .pipe(reportFailure(json))
).pipe(Command.withDescription("Print the OpenAPI 3.1 document of the API as JSON"))

export const command = Command.make("pulsebridge").pipe(
  Command.withDescription("Operate a PulseBridge server: apps, API keys, users, migrations, the server itself"),
  Command.withSubcommands([apps, apiKeys, providerCredentials, users, migrate, serve, openapi])
)

export const run = Command.run(command, { name: "pulsebridge", version: "0.1.0" })
