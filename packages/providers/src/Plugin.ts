/**
 * The provider plug-in: everything the server needs of one provider, as one value. A plug-in
 * carries its catalogue entry (listing, score priorities, limits), its OAuth adapter, its data
 * reader (windows, notifications) and, when the provider pushes, its webhook receiver. The
 * server reaches providers only through these values, kept in the `ProviderRegistry`.
 *
 * Names are plain strings here so that a provider the domain does not list yet can be plugged
 * in; the built-in plug-ins keep their literal names.
 */
import type { DataType } from "@pulsebridge/domain"
import { ProviderInfo } from "@pulsebridge/domain"
import type * as Redacted from "effect/Redacted"
import type { ProviderAdapter } from "./Adapter.js"
import type { ProviderData } from "./Canonical.js"

// ---- catalogue ----

/** The score inputs a provider may be the source of. */
export const scoreInputs = [
  "sleep",
  "hrv",
  "restingHeartRate",
  "skinTemperature",
  "spo2",
  "steps",
  "activeMinutes",
  "sedentaryTime",
  "activeCalories",
  "trainingLoad"
] as const
export type ScoreInput = typeof scoreInputs[number]

/**
 * A rank per score input: when several providers report an input for the same day, the lowest
 * rank wins. An input without a rank is one the provider is never the source of.
 */
export type ScorePriority = Readonly<Partial<Record<ScoreInput, number>>>

/** A documented request budget: `requests` per `windowSeconds`, counted per user or per app. */
export interface RateLimit {
  readonly requests: number
  readonly windowSeconds: number
  readonly per: "user" | "app"
}

export interface ProviderLimits {
  /** How far back a backfill may reach, in days. */
  readonly maxBackfillDays: number
  /** The widest window one `fetchWindow` reads, in local days. */
  readonly windowDays: number
  /** The provider's documented budgets (empty when it publishes none). */
  readonly rateLimits: ReadonlyArray<RateLimit>
}

/** What PulseBridge offers of a provider: its listing, its place in scoring, its limits. */
export interface CatalogEntry<Name extends string = string> {
  readonly name: Name
  /** The provider in URLs (`/sandbox/<slug>`, `/webhooks/<slug>/<appId>`). */
  readonly slug: string
  readonly authType: "OAuth2" | "OAuth1"
  readonly logoUrl: string | null
  readonly supportedDataTypes: ReadonlyArray<typeof DataType.Type>
  readonly scorePriority: ScorePriority
  readonly limits: ProviderLimits
  /**
   * Hours after a local day ends during which the provider may still deliver data of that day (the
   * device's next sync through the phone, the provider's own processing); until then a day without its
   * data is pending rather than missing. Absent: `DefaultDataDelayHours`.
   */
  readonly dataDelayHours?: number | undefined
  /**
   * A provider beyond the service contract's four: outside sandbox mode it is listed (`GET .../providers`) only to
   * an app whose credentials for it are configured, so that a client that follows the contract sees exactly the
   * four by default. In sandbox mode every provider is listed.
   */
  readonly listedWhenConfigured?: true | undefined
}

/**
 * The delay of a provider that states none: a wearable that syncs through a phone usually sends the end
 * of a day at its first sync the next morning.
 */
export const DefaultDataDelayHours = 12

/** The hours after a day ends during which `entry`'s provider may still deliver data of that day. */
export const dataDelayHoursOf = (entry: CatalogEntry): number => entry.dataDelayHours ?? DefaultDataDelayHours

/** A catalogue entry as the service contract lists it (`GET /providers`). */
export const toProviderInfo = (entry: CatalogEntry): ProviderInfo =>
  new ProviderInfo({
    name: entry.name,
    slug: entry.slug,
    authType: entry.authType,
    logoUrl: entry.logoUrl,
    supportedDataTypes: entry.supportedDataTypes
  })

// ---- webhooks ----

/** A webhook delivery as received. Header names are lower case. */
export interface WebhookRequest {
  readonly method: "GET" | "POST"
  readonly query: URLSearchParams
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The exact body text: signatures cover these bytes. */
  readonly body: string
}

/** The receiving app's credentials at the provider. */
export interface WebhookApp {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted
  /** Fitbit: the Google Health subscriber's Authorization value; null when none is configured. */
  readonly verificationCode: string | null
  /**
   * Other ids the provider may still name the app by: the OAuth 1.0a consumer key kept beside
   * OAuth 2.0 credentials (Garmin's `garmin-client-id`).
   */
  readonly otherClientIds?: ReadonlyArray<string> | undefined
  /**
   * The public keys the provider signs its deliveries with, as text (Fitbit: a Tink JSON public keyset, Google's
   * published one or the sandbox simulator's). Given, a delivery without a good signature is refused; absent or
   * null, signatures are not checked.
   */
  readonly signingKeys?: string | null | undefined
}

/** One notification for the connections of one provider user; `notification` is plain JSON. */
export interface WebhookNotification {
  readonly providerUserId: string
  readonly notification: unknown
}

export type WebhookResult =
  /**
   * A verification request answered with the right code: answer `status` (204 when absent; Google wants 201), with
   * `body` as JSON when given (Oura wants its challenge back in `{"challenge": ...}`, with 200).
   */
  | {
    readonly _tag: "Verified"
    readonly status?: 200 | 201 | 204 | undefined
    readonly body?: unknown
  }
  /** The delivery failed its check or could not be read; nothing may change. */
  | { readonly _tag: "Rejected"; readonly status: 400 | 401 | 404; readonly message: string }
  /** A good delivery: answer `status`, then hand each notification to `ProviderData.notify`. */
  | {
    readonly _tag: "Accepted"
    readonly status: 200 | 204
    readonly notifications: ReadonlyArray<WebhookNotification>
    /** Provider users who withdrew our access at the provider. */
    readonly deregistrations: ReadonlyArray<string>
  }

/**
 * Checks and reads one delivery. Pure: the time comes in as `nowMs`, and nothing is looked up;
 * the caller finds the app (an unknown app is its 404) and the connections of each user.
 */
export type WebhookReceiver = (request: WebhookRequest, app: WebhookApp, nowMs: number) => WebhookResult

// ---- the plug-in ----

export interface ProviderPlugin<Name extends string = string> {
  readonly catalog: CatalogEntry<Name>
  /** The adapter of the catalogue's `authType`, used when an app's credentials name no other kind. */
  readonly adapter: ProviderAdapter
  /**
   * Adapters for the other kinds of credentials the provider accepts (Garmin: OAuth 2.0 beside
   * OAuth 1.0a), one per `authType`; the kind stored with an app's credentials picks one.
   */
  readonly alternateAdapters?: ReadonlyArray<ProviderAdapter> | undefined
  readonly data: ProviderData
  /** Absent for providers that never push (Dexcom). */
  readonly webhooks?: WebhookReceiver | undefined
  /**
   * The `WebhookApp.signingKeys` of the provider's simulator, given the sandbox client's secret (from which the
   * simulator derives its signing key). Absent: the provider's deliveries carry no signature to check.
   */
  readonly sandboxSigningKeys?: ((clientSecret: string) => string) | undefined
  /**
   * Where the provider publishes the public keys it signs deliveries with (`WebhookApp.signingKeys` for apps with
   * their own credentials), read and kept by the server. Absent: deliveries carry no signature to check.
   */
  readonly signingKeysUrl?: string | undefined
}

/** The plug-in's adapter for credentials of `authType`, if the provider accepts that kind. */
export const adapterFor = (plugin: ProviderPlugin, authType: "OAuth1" | "OAuth2"): ProviderAdapter | undefined =>
  plugin.adapter.authType === authType
    ? plugin.adapter
    : plugin.alternateAdapters?.find((adapter) => adapter.authType === authType)

/**
 * The provider names that are a source of `input`, best first (ties keep the plug-ins' order).
 */
export const scoreOrder = (plugins: ReadonlyArray<ProviderPlugin>, input: ScoreInput): ReadonlyArray<string> =>
  plugins
    .flatMap((plugin) => {
      const rank = plugin.catalog.scorePriority[input]
      return rank === undefined ? [] : [{ name: plugin.catalog.name, rank }]
    })
    .sort((a, b) => a.rank - b.rank)
    .map((entry) => entry.name)
