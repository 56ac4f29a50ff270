/** The apps' group: apps, their API keys, and their credentials at each provider. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  ApiKeyId,
  AppId,
  BadRequest,
  ContractString,
  NotFound,
  Permission,
  Provider,
  Timestamp
} from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { PortalAuth } from "./Session.js"

export const AppName = ContractString({ minLength: 1, maxLength: 200, freeText: true }, "The app's name")

export class PortalApp extends Schema.Class<PortalApp>("PortalApp")({
  id: AppId,
  name: Schema.String,
  createdAt: Timestamp,
  users: Schema.Int.annotations({ description: "Users of the app that are not erased" })
}) {}

export class AppPayload extends Schema.Class<AppPayload>("AppPayload")({ name: AppName }) {}

export const KeyName = ContractString({ maxLength: 200, freeText: true }, "A note of the operator's own")

export class ApiKeySummary extends Schema.Class<ApiKeySummary>("ApiKeySummary")({
  id: ApiKeyId,
  name: Schema.NullOr(Schema.String),
  prefix: Schema.String.annotations({ description: "The first characters of the key, to recognise it" }),
  permissions: Schema.Array(Permission),
  createdAt: Timestamp,
  lastUsedAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp)
}) {}

export class CreateKeyPayload extends Schema.Class<CreateKeyPayload>("CreateKeyPayload")({
  name: Schema.optional(KeyName),
  permissions: Schema.Array(Permission).pipe(Schema.minItems(1))
}) {}

export class CreatedKey extends Schema.Class<CreatedKey>("CreatedKey")({
  key: ApiKeySummary,
  apiKey: Schema.String.annotations({ description: "The whole key: shown this once, never again" })
}) {}

/** One provider as an app has (or has not) set it up. Secrets are never answered. */
export class ProviderSetup extends Schema.Class<ProviderSetup>("ProviderSetup")({
  provider: Provider,
  displayName: Schema.String,
  authTypes: Schema.Array(Schema.Literal("OAuth2", "OAuth1")).annotations({
    description: "The kinds of credentials the provider accepts"
  }),
  configured: Schema.Boolean,
  authType: Schema.NullOr(Schema.Literal("OAuth2", "OAuth1")),
  clientId: Schema.NullOr(Schema.String).annotations({
    description: "Not a secret: shown to recognise the credentials"
  }),
  scopes: Schema.NullOr(Schema.String),
  updatedAt: Schema.NullOr(Timestamp),
  callbackUrl: Schema.String.annotations({ description: "The redirect URL to register at the provider" }),
  webhookUrl: Schema.NullOr(Schema.String).annotations({
    description: "The URL the provider pushes to; null for providers that do not push"
  })
}) {}

// Contract strings: no control characters, NUL or lone surrogates, as everywhere in the API.
const SecretText = ContractString({ minLength: 1, maxLength: 4096 })
const PlainText = ContractString({ minLength: 1, maxLength: 1024 })

/** Sets or replaces an app's credentials at a provider; the secret fields are write-only. */
export class ProviderCredentialsPayload extends Schema.Class<ProviderCredentialsPayload>("ProviderCredentialsPayload")({
  clientId: PlainText,
  clientSecret: SecretText,
  authType: Schema.optional(Schema.Literal("OAuth2", "OAuth1")),
  scopes: Schema.optional(PlainText),
  oauth1ClientId: Schema.optional(PlainText),
  oauth1ClientSecret: Schema.optional(SecretText),
  webhookVerificationCode: Schema.optional(SecretText)
}) {}

export class AssistantSignIn extends Schema.Class<AssistantSignIn>("AssistantSignIn")({
  assistantSignInUrl: Schema.NullOr(
    ContractString({ minLength: 1, maxLength: 2048, noWhitespace: true }).annotations({
      description: "Where an assistant's OAuth sign-in goes (https; docs/mcp.md); null: assistants cannot sign in"
    })
  )
}) {}

/** The path of one app, which every page of an app starts from. */
export const AppPath = Schema.Struct({ appId: AppId })

export class AppsGroup extends HttpApiGroup.make("portalApps")
  .add(HttpApiEndpoint.get("list", "/portal/api/apps").addSuccess(Schema.Struct({ data: Schema.Array(PortalApp) })))
  .add(HttpApiEndpoint.post("create", "/portal/api/apps").setPayload(AppPayload).addSuccess(PortalApp, { status: 201 }))
  .add(HttpApiEndpoint.get("get", "/portal/api/apps/:appId").setPath(AppPath).addSuccess(PortalApp).addError(NotFound))
  .add(
    HttpApiEndpoint.patch("rename", "/portal/api/apps/:appId")
      .setPath(AppPath)
      .setPayload(AppPayload)
      .addSuccess(PortalApp)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("assistantSignIn", "/portal/api/apps/:appId/assistant-sign-in")
      .setPath(AppPath)
      .addSuccess(AssistantSignIn)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setAssistantSignIn", "/portal/api/apps/:appId/assistant-sign-in")
      .setPath(AppPath)
      .setPayload(AssistantSignIn)
      .addSuccess(AssistantSignIn)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("keys", "/portal/api/apps/:appId/keys")
      .setPath(AppPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(ApiKeySummary) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("createKey", "/portal/api/apps/:appId/keys")
      .setPath(AppPath)
      .setPayload(CreateKeyPayload)
      .addSuccess(CreatedKey, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("revokeKey", "/portal/api/apps/:appId/keys/:keyId/revoke")
      .setPath(Schema.Struct({ appId: AppId, keyId: ApiKeyId }))
      .addSuccess(ApiKeySummary)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("providers", "/portal/api/apps/:appId/providers")
      .setPath(AppPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(ProviderSetup) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setProvider", "/portal/api/apps/:appId/providers/:provider")
      .setPath(Schema.Struct({ appId: AppId, provider: Provider }))
      .setPayload(ProviderCredentialsPayload)
      .addSuccess(ProviderSetup)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
