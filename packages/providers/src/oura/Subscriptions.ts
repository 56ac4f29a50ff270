/**
 * Oura webhook subscriptions (`/v2/webhook/subscription`, cloud.ouraring.com/v2/docs "Webhook Subscription
 * Routes"): they belong to the app, not to a user (the calls carry `x-client-id` and `x-client-secret`, no user
 * token), one per callback URL, event type (`create`, `update`, `delete`) and data type, and each has an
 * `expiration_time` after which Oura stops notifying: `PUT /v2/webhook/subscription/renew/{id}` extends it.
 * Creating one makes Oura verify the callback first (see `Webhooks.ts`).
 *
 * `ensureOuraSubscriptions` makes the app's subscriptions what PulseBridge needs, idempotently: it lists them,
 * renews those of this callback that expire within `renewWithinMs`, creates those missing (or expired), and
 * leaves everything else (another callback's subscriptions are another deployment's). It runs after each
 * backfill, and may run on a schedule; periodic sync covers the time a subscription has lapsed.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ClientCredentials, ProviderEndpoints } from "../Adapter.js"
import type { AfterBackfillInput } from "../Canonical.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { parseInstant } from "../Shared.js"
import { ouraContext, ouraDefaultEndpoints } from "./Adapter.js"
import type { OuraNotifiedDataType } from "./Webhooks.js"
import { ouraNotifiedDataTypes, ouraVerificationToken } from "./Webhooks.js"

/** Renew a subscription when it expires within this (the docs name no lifetime; a week is ample slack). */
export const ouraRenewWithinMs = 7 * 86_400_000

/** One subscription as Oura lists it (`WebhookSubscriptionModel`). */
export const OuraSubscription = Schema.Struct({
  id: Schema.String,
  callback_url: Schema.String,
  event_type: Schema.String,
  data_type: Schema.String,
  expiration_time: Schema.String
})
export type OuraSubscription = typeof OuraSubscription.Type

/** What PulseBridge subscribes to: creations and updates of every collection it reads, deletions of sessions. */
export const ouraWantedSubscriptions: ReadonlyArray<
  { readonly eventType: "create" | "update" | "delete"; readonly dataType: OuraNotifiedDataType }
> = [
  ...ouraNotifiedDataTypes.flatMap((dataType) => [
    { eventType: "create" as const, dataType },
    { eventType: "update" as const, dataType }
  ]),
  // a deleted sleep or workout is deleted here too; a deleted daily document cannot be placed (its id names no day)
  { eventType: "delete", dataType: "sleep" },
  { eventType: "delete", dataType: "workout" }
]

export interface SubscriptionInput {
  readonly credentials: ClientCredentials
  readonly endpoints: ProviderEndpoints
  /** Where Oura should notify: the server's public webhook URL of this app. */
  readonly callbackUrl: string
  /** The token Oura's verification request must carry (default: derived from the client secret). */
  readonly verificationToken?: string | undefined
  readonly nowMs: number
}

export interface SubscriptionChanges {
  readonly created: ReadonlyArray<string>
  readonly renewed: ReadonlyArray<string>
  readonly unchanged: ReadonlyArray<string>
}

const appHeaders = (credentials: ClientCredentials) =>
  HttpClientRequest.setHeaders({
    "x-client-id": credentials.clientId,
    "x-client-secret": Redacted.value(credentials.clientSecret)
  })

const label = (s: { readonly eventType: string; readonly dataType: string }) => `${s.eventType}:${s.dataType}`

export const ensureOuraSubscriptions = (input: SubscriptionInput) =>
  Effect.gen(function*() {
    const base = `${input.endpoints.apiBaseUrl}/v2/webhook/subscription`
    const secrets = [input.credentials.clientSecret]
    const ctx = (operation: string) => ({ ...ouraContext(operation), secrets })
    const listCtx = ctx("webhook subscription list")
    const existing = yield* ProviderHttp.send(
      listCtx,
      HttpClientRequest.get(base).pipe(appHeaders(input.credentials), HttpClientRequest.acceptJson),
      ProviderHttp.readJson(listCtx, Schema.Array(OuraSubscription))
    )
    const token = input.verificationToken ?? ouraVerificationToken(input.credentials.clientSecret)
    const created: Array<string> = []
    const renewed: Array<string> = []
    const unchanged: Array<string> = []
    for (const wanted of ouraWantedSubscriptions) {
      const live = existing
        .filter((s) =>
          s.callback_url === input.callbackUrl && s.event_type === wanted.eventType &&
          s.data_type === wanted.dataType && parseInstant(s.expiration_time) > input.nowMs
        )
        .sort((a, b) => parseInstant(b.expiration_time) - parseInstant(a.expiration_time))[0]
      if (live === undefined) {
        const createCtx = ctx("webhook subscription create")
        yield* ProviderHttp.send(
          createCtx,
          HttpClientRequest.post(base).pipe(
            appHeaders(input.credentials),
            HttpClientRequest.acceptJson,
            HttpClientRequest.bodyUnsafeJson({
              callback_url: input.callbackUrl,
              verification_token: token,
              event_type: wanted.eventType,
              data_type: wanted.dataType
            })
          ),
          ProviderHttp.readJson(createCtx, OuraSubscription)
        )
        created.push(label(wanted))
      } else if (parseInstant(live.expiration_time) - input.nowMs <= ouraRenewWithinMs) {
        const renewCtx = ctx("webhook subscription renewal")
        yield* ProviderHttp.send(
          renewCtx,
          HttpClientRequest.put(`${base}/renew/${ProviderHttp.encodeComponent(live.id)}`).pipe(
            appHeaders(input.credentials),
            HttpClientRequest.acceptJson
          ),
          ProviderHttp.readNothing
        )
        renewed.push(label(wanted))
      } else {
        unchanged.push(label(wanted))
      }
    }
    return { created, renewed, unchanged } satisfies SubscriptionChanges
  })

const privateHost = /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|\[?::1\]?$|0\.0\.0\.0)/i

/**
 * The callback URL Oura can reach, when there is one. Oura must call it from the internet, so against
 * Oura itself only an `https` URL of a public host qualifies; against any other API (the sandbox's simulator,
 * on the server's own network) any http(s) URL does.
 */
export const ouraPublicCallback = (url: string | null | undefined, endpoints: ProviderEndpoints): string | null => {
  if (url === null || url === undefined || url === "") return null
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (endpoints.apiBaseUrl !== ouraDefaultEndpoints.apiBaseUrl) {
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? url : null
  }
  return parsed.protocol === "https:" && !privateHost.test(parsed.hostname) ? url : null
}

/** The app's callback URL the server passes with `afterBackfill`, when Oura could reach it. */
export const callbackUrlOf = (input: AfterBackfillInput): string | null =>
  ouraPublicCallback(input.webhookUrl, input.endpoints)
