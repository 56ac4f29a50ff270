/**
 * Acme, a fictional fifth provider, as a provider plug-in: an OAuth 2.0 adapter, a data reader of
 * daily activity, a pure normaliser and a catalogue entry. Built only from what
 * `@pulsebridge/providers` offers any plug-in (the shared HTTP and OAuth 2.0 helpers), so it is
 * what adding a real provider looks like.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type {
  CanonicalBatch,
  DailyActivityRecord,
  ProviderAdapter,
  ProviderData,
  ProviderPlugin
} from "@pulsebridge/providers"
import { emptyBatch, ProviderError } from "@pulsebridge/providers"
import * as OAuth2 from "@pulsebridge/providers/internal/OAuth2"
import type { CallContext } from "@pulsebridge/providers/internal/ProviderHttp"
import * as ProviderHttp from "@pulsebridge/providers/internal/ProviderHttp"
import { decodeEach } from "@pulsebridge/providers/Shared"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

const context = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Acme",
  operation,
  readError: ProviderHttp.oauthErrorReader,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

export const AcmeAdapter: ProviderAdapter = {
  provider: "Acme",
  authType: "OAuth2",
  defaultScopes: ["daily"],
  requiredScopes: ["daily"],
  defaultEndpoints: {
    authBaseUrl: "https://acme.example",
    tokenBaseUrl: "https://acme.example",
    apiBaseUrl: "https://acme.example"
  },
  startAuthorization: (input) =>
    Effect.succeed({
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/oauth/authorize`, [
        ["client_id", input.credentials.clientId],
        ["redirect_uri", input.callbackUrl],
        ["response_type", "code"],
        ["scope", OAuth2.scopeString(input.scopes, ["daily"])],
        ["state", input.state]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: false
    }),
  exchange: (input) =>
    OAuth2.requestTokens(context("token exchange", input), {
      url: `${input.endpoints.tokenBaseUrl}/oauth/token`,
      clientAuth: "body",
      credentials: input.credentials,
      form: { grant_type: "authorization_code", code: input.code, redirect_uri: input.callbackUrl },
      fallbackScopes: "daily",
      fallbackRefreshToken: null
    }),
  providerUserId: (input) => {
    const ctx = context("user read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/v1/me`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken)
      ),
      ProviderHttp.readJson(ctx, Schema.Struct({ id: Schema.NonEmptyString }))
    ).pipe(Effect.map((me) => me.id))
  },
  refresh: (input) => {
    const ctx = context("token refresh", input)
    return OAuth2.refreshTokens(ctx, {
      url: `${input.endpoints.tokenBaseUrl}/oauth/token`,
      clientAuth: "body",
      credentials: input.credentials,
      tokens: input.tokens
    })
  },
  revoke: (input) => {
    const ctx = context("token revocation", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.post(`${input.endpoints.tokenBaseUrl}/oauth/revoke`).pipe(
        HttpClientRequest.bodyUrlParams({
          token: Redacted.value(input.tokens.refreshToken ?? input.tokens.accessToken),
          client_id: input.credentials.clientId,
          client_secret: Redacted.value(input.credentials.clientSecret)
        })
      ),
      () => Effect.void
    )
  }
}

/** One Acme day as the API sends it. */
export const AcmeDay = Schema.Struct({
  day: Schema.String,
  steps: Schema.Number,
  total_calories: Schema.Number,
  meters: Schema.Number,
  moderate_minutes: Schema.Number,
  vigorous_minutes: Schema.Number
})

/** Pure: an Acme day into the canonical daily activity. */
export const normaliseAcmeDay = (userId: string, day: typeof AcmeDay.Type): DailyActivityRecord => ({
  providerRecordId: `${userId}:${day.day}`,
  date: day.day,
  steps: day.steps,
  caloriesOut: day.total_calories,
  activeCalories: null,
  distanceMeters: day.meters,
  lightActiveMinutes: 0,
  moderateActiveMinutes: day.moderate_minutes,
  vigorousActiveMinutes: day.vigorous_minutes,
  sedentaryMinutes: 0,
  floorsClimbed: 0,
  restingHeartRate: null,
  rawJson: JSON.stringify(day)
})

export const AcmeData: ProviderData = {
  windowDays: 7,
  maxBackfillDays: 30,
  fetchWindow: (input, window) => {
    const ctx = context("daily read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(
        ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}/v1/daily`, [
          ["start_date", window.from],
          ["end_date", window.to]
        ])
      ).pipe(HttpClientRequest.bearerToken(input.tokens.accessToken)),
      ProviderHttp.readJson(ctx, Schema.Struct({ data: Schema.Array(Schema.Unknown) }))
    ).pipe(
      Effect.map((reply): CanonicalBatch => {
        // Day by day: one malformed day is quarantined, the others are stored.
        const { quarantined, records } = decodeEach({
          kind: "DailyActivity",
          schema: AcmeDay,
          items: reply.data,
          normalise: (day) => normaliseAcmeDay(input.providerUserId, day),
          idOf: (raw) => {
            const day = (raw as { day?: unknown } | null)?.day
            return typeof day === "string" ? `${input.providerUserId}:${day}` : null
          }
        })
        return { ...emptyBatch, dailyActivity: records, quarantined }
      })
    )
  },
  notify: () =>
    Effect.fail(
      new ProviderError({
        provider: "Acme",
        operation: "notification",
        message: "Acme sends no notifications",
        code: "invalid_notification"
      })
    )
}

export const AcmePlugin: ProviderPlugin = {
  catalog: {
    name: "Acme",
    slug: "acme",
    authType: "OAuth2",
    logoUrl: null,
    supportedDataTypes: ["DailyActivity"],
    scorePriority: { steps: 5, activeMinutes: 5 },
    limits: { maxBackfillDays: AcmeData.maxBackfillDays, windowDays: AcmeData.windowDays, rateLimits: [] }
  },
  adapter: AcmeAdapter,
  data: AcmeData
}
