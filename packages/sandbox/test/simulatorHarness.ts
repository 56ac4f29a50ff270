/**
 * Test plumbing for the simulator suites: a hand-driven clock, a small HTTP client that never
 * follows redirects, a webhook receiver, OAuth 1.0a signing with the `oauth-1.0a` package, and
 * one "connect" helper per provider that walks the consent and token legs like an adapter would.
 */
import { HttpClient, HttpClientRequest, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import type { BuiltinProvider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import OAuth from "oauth-1.0a"
import type { Simulator, SimulatorClient, SimulatorControl, SimulatorOptions } from "../src/index.js"
import { makeSimulator, serveHttpApp, serveSimulator } from "../src/index.js"

export const CLIENT: SimulatorClient = { clientId: "pb-client", clientSecret: "pb-client-secret" }
export const OTHER_CLIENT: SimulatorClient = { clientId: "other-client", clientSecret: "other-client-secret" }
/** Where the simulators redirect; never visited, only read from `Location`. */
export const REDIRECT = "https://app.example/callback"
export const STATE = "state-0123456789"
export const NOW = "2025-06-15T12:00:00.000Z"

/** A clock tests move by hand. */
export class ManualClock {
  ms: number
  constructor(iso: string = NOW) {
    this.ms = Date.parse(iso)
  }
  readonly now = () => new Date(this.ms)
  advance(ms: number): void {
    this.ms += ms
  }
  set(iso: string): void {
    this.ms = Date.parse(iso)
  }
}

export const HttpLive = NodeHttpClient.layer

export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
  readonly json: () => any
  /** The `Location` header parsed, for redirects. */
  readonly location: () => URL
}

export interface RequestOptions {
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly form?: Readonly<Record<string, string | ReadonlyArray<string>>> | undefined
  readonly json?: unknown
}

export const send = (method: "GET" | "POST" | "DELETE", url: string, options: RequestOptions = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(url).pipe(HttpClientRequest.setHeaders(options.headers ?? {}))
    if (options.form !== undefined) {
      const params = new URLSearchParams()
      for (const [key, value] of Object.entries(options.form)) {
        for (const v of typeof value === "string" ? [value] : value) params.append(key, v)
      }
      request = HttpClientRequest.bodyText(request, params.toString(), "application/x-www-form-urlencoded")
    } else if (options.json !== undefined) {
      request = HttpClientRequest.bodyText(request, JSON.stringify(options.json), "application/json")
    }
    const response = yield* client.execute(request)
    const text = yield* response.text
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: () => JSON.parse(text),
      location: () => new URL(response.headers["location"] ?? "")
    } satisfies Reply
  })

export const get = (url: string, headers?: Readonly<Record<string, string>>) => send("GET", url, { headers })
export const postForm = (
  url: string,
  form: Readonly<Record<string, string | ReadonlyArray<string>>>,
  headers?: Readonly<Record<string, string>>
) => send("POST", url, { form, headers })

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`
})

/** The consent form's `action`, HTML entities undone. */
export const formAction = (html: string): string => {
  const m = /<form method="post" action="([^"]*)"/.exec(html)
  if (m === null) throw new Error("no consent form")
  return m[1]!.replace(/&amp;/g, "&").replace(/&quot;/g, "\"").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
}

export const pkcePair = () => {
  const verifier = crypto.randomBytes(48).toString("base64url")
  return { verifier, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") }
}

export const options = (clock: ManualClock, extra: Partial<SimulatorOptions> = {}): SimulatorOptions => ({
  baseUrl: "http://placeholder.invalid",
  clients: [CLIENT, OTHER_CLIENT],
  now: clock.now,
  ...extra
})

/** A simulator served on a free port for the test's scope. */
export const served = <P extends BuiltinProvider>(
  provider: P,
  clock: ManualClock,
  extra: Partial<SimulatorOptions> = {}
) =>
  Effect.gen(function*() {
    const sim = makeSimulator(provider, options(clock, extra))
    const server = yield* serveSimulator(sim)
    return { sim, base: server.baseUrl, close: server.close }
  })

// ---- a webhook receiver ----

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

/** Records requests and answers with `respond(request)` (default 204). */
export const receiver = (respond: (received: Received) => number = () => 204) =>
  Effect.gen(function*() {
    const received: Array<Received> = []
    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.orElseSucceed(request.text, () => "")
      const entry = { method: request.method, url: request.url, headers: request.headers, body }
      received.push(entry)
      return HttpServerResponse.empty({ status: respond(entry) })
    })
    const server = yield* serveHttpApp(app)
    return { url: `${server.baseUrl}/hook`, received }
  })

// ---- OAuth 1.0a signing (as the Garmin adapter does) ----

export const oauth1 = (consumer: SimulatorClient = CLIENT) =>
  new OAuth({
    consumer: { key: consumer.clientId, secret: consumer.clientSecret },
    signature_method: "HMAC-SHA1",
    hash_function: (base, key) => crypto.createHmac("sha1", key).update(base).digest("base64")
  })

export const signed = (
  method: "GET" | "POST" | "DELETE",
  url: string,
  token?: { readonly key: string; readonly secret: string },
  data?: Readonly<Record<string, string>>,
  consumer: SimulatorClient = CLIENT
) =>
  oauth1(consumer).toHeader(oauth1(consumer).authorize({ url, method, data: { ...data } }, token)) as unknown as {
    readonly Authorization: string
  }

/** Sends a request signed with the consumer (and token) credentials; `data` goes in the form body. */
export const sendSigned = (
  method: "GET" | "POST" | "DELETE",
  url: string,
  token?: { readonly key: string; readonly secret: string },
  data?: Readonly<Record<string, string>>,
  consumer: SimulatorClient = CLIENT
) => {
  const header = signed(method, url, token, data, consumer)
  return send(method, url, {
    headers: { authorization: header.Authorization },
    ...(data === undefined ? {} : { form: data })
  })
}

// ---- walking the OAuth legs ----

const approve = (url: string, form: Readonly<Record<string, string | ReadonlyArray<string>>>) =>
  Effect.map(postForm(url, { decision: "approve", ...form }), (reply) => {
    if (reply.status !== 302) throw new Error(`approve answered ${reply.status}: ${reply.text}`)
    return reply.location()
  })

export interface OAuth2Tokens {
  readonly access: string
  readonly refresh: string | null
  readonly body: any
}

/** The Google Health API scopes the Fitbit (Google Health) tests ask for. */
export const GOOGLE_ACTIVITY = "https://www.googleapis.com/auth/googlehealth.activity_and_fitness.readonly"
export const GOOGLE_SETTINGS = "https://www.googleapis.com/auth/googlehealth.settings.readonly"
export const GOOGLE_PROFILE = "https://www.googleapis.com/auth/googlehealth.profile.readonly"

/** Google's consent URL on the Google Health API simulator, offline access with consent. */
export const fitbitAuthorizeUrl = (base: string, extra: Readonly<Record<string, string>> = {}) =>
  `${base}/o/oauth2/v2/auth?${new URLSearchParams({
    client_id: CLIENT.clientId,
    response_type: "code",
    scope: `${GOOGLE_ACTIVITY} ${GOOGLE_SETTINGS} ${GOOGLE_PROFILE}`,
    redirect_uri: REDIRECT,
    state: STATE,
    access_type: "offline",
    prompt: "consent",
    ...extra
  })}`

export const fitbitConnect = (base: string, user = "sandbox-user") =>
  Effect.gen(function*() {
    const { verifier, challenge } = pkcePair()
    const location = yield* approve(
      fitbitAuthorizeUrl(base, { code_challenge: challenge, code_challenge_method: "S256" }),
      { user }
    )
    const reply = yield* postForm(`${base}/token`, {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret
    })
    if (reply.status !== 200) throw new Error(`token answered ${reply.status}: ${reply.text}`)
    const body = reply.json()
    return { access: body.access_token, refresh: body.refresh_token, body } as OAuth2Tokens
  })

export const whoopAuthorizeUrl = (base: string, extra: Readonly<Record<string, string>> = {}) =>
  `${base}/oauth/oauth2/auth?${new URLSearchParams({
    client_id: CLIENT.clientId,
    response_type: "code",
    scope: "offline read:recovery read:cycles read:workout read:sleep read:profile read:body_measurement",
    redirect_uri: REDIRECT,
    state: STATE,
    ...extra
  })}`

export const whoopConnect = (base: string, user = "sandbox-user", extra: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function*() {
    const location = yield* approve(whoopAuthorizeUrl(base, extra), { user })
    const reply = yield* postForm(`${base}/oauth/oauth2/token`, {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret
    })
    if (reply.status !== 200) throw new Error(`token answered ${reply.status}: ${reply.text}`)
    const body = reply.json()
    return { access: body.access_token, refresh: body.refresh_token ?? null, body } as OAuth2Tokens
  })

export const dexcomLoginUrl = (base: string, extra: Readonly<Record<string, string>> = {}) =>
  `${base}/v2/oauth2/login?${new URLSearchParams({
    client_id: CLIENT.clientId,
    response_type: "code",
    scope: "offline_access",
    redirect_uri: REDIRECT,
    state: STATE,
    ...extra
  })}`

export const dexcomConnect = (base: string, user = "sandbox-user") =>
  Effect.gen(function*() {
    const location = yield* approve(dexcomLoginUrl(base), { user })
    const reply = yield* postForm(`${base}/v2/oauth2/token`, {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret
    })
    if (reply.status !== 200) throw new Error(`token answered ${reply.status}: ${reply.text}`)
    const body = reply.json()
    return { access: body.access_token, refresh: body.refresh_token, body } as OAuth2Tokens
  })

export const GARMIN_CALLBACK = "https://app.example/garmin/callback"

export const garminRequestToken = (base: string, consumer: SimulatorClient = CLIENT) =>
  Effect.map(
    sendSigned("POST", `${base}/oauth-service/oauth/request_token`, undefined, undefined, consumer),
    (reply) => {
      if (reply.status !== 200) throw new Error(`request_token answered ${reply.status}: ${reply.text}`)
      const params = new URLSearchParams(reply.text)
      return { key: params.get("oauth_token")!, secret: params.get("oauth_token_secret")! }
    }
  )

export const garminConfirmUrl = (base: string, requestToken: string) =>
  `${base}/oauthConfirm?${new URLSearchParams({ oauth_token: requestToken, oauth_callback: GARMIN_CALLBACK })}`

export const garminConnect = (base: string, user = "sandbox-user") =>
  Effect.gen(function*() {
    const requestToken = yield* garminRequestToken(base)
    const location = yield* approve(garminConfirmUrl(base, requestToken.key), { user })
    const verifier = location.searchParams.get("oauth_verifier")!
    const reply = yield* sendSigned("POST", `${base}/oauth-service/oauth/access_token`, requestToken, {
      oauth_verifier: verifier
    })
    if (reply.status !== 200) throw new Error(`access_token answered ${reply.status}: ${reply.text}`)
    const params = new URLSearchParams(reply.text)
    return { key: params.get("oauth_token")!, secret: params.get("oauth_token_secret")! }
  })

/** For tests over all providers: connect a user and make an authorized call to a data path. */
export const providerCases: ReadonlyArray<{
  readonly provider: BuiltinProvider
  readonly dataPath: string
  readonly connect: (
    base: string,
    user?: string
  ) => Effect.Effect<
    (path: string) => Effect.Effect<Reply, unknown, HttpClient.HttpClient>,
    unknown,
    HttpClient.HttpClient
  >
}> = [
  {
    provider: "Fitbit",
    dataPath: "/v4/users/me/identity",
    connect: (base, user) =>
      Effect.map(fitbitConnect(base, user), (t) => (path: string) => get(`${base}${path}`, bearer(t.access)))
  },
  {
    provider: "Garmin",
    dataPath: "/wellness-api/rest/dailies?uploadStartTimeInSeconds=1749513600&uploadEndTimeInSeconds=1749600000",
    connect: (base, user) =>
      Effect.map(garminConnect(base, user), (t) => (path: string) => sendSigned("GET", `${base}${path}`, t))
  },
  {
    provider: "WHOOP",
    dataPath: "/developer/v2/cycle?limit=5",
    connect: (base, user) =>
      Effect.map(whoopConnect(base, user), (t) => (path: string) => get(`${base}${path}`, bearer(t.access)))
  },
  {
    provider: "Dexcom",
    dataPath: "/v3/users/self/egvs?startDate=2025-06-10T00:00:00&endDate=2025-06-10T06:00:00",
    connect: (base, user) =>
      Effect.map(dexcomConnect(base, user), (t) => (path: string) => get(`${base}${path}`, bearer(t.access)))
  }
]

export type Served = Effect.Effect.Success<ReturnType<typeof served>>
export type AnySimulator = Simulator<SimulatorControl>
export type Scoped<A> = Effect.Effect<A, unknown, HttpClient.HttpClient | Scope.Scope>
