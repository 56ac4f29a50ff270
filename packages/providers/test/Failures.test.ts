/**
 * How every provider call of every adapter fails: rate limits with each provider's reset header,
 * 5xx, transport errors, the 10 s timeout, replies that do not match the provider's schema, and
 * secrets a provider quotes back, which must never reach an error message.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import type { ProviderAdapter, ProviderError } from "@pulsebridge/providers"
import { DexcomAdapter, FitbitAdapter, GarminAdapter, WhoopAdapter } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import type { Responder } from "./fixtures/FakeHttp.js"
import {
  callbackUrl,
  credentials,
  endpoints,
  fakeHttp,
  json,
  oauth2Tokens,
  text,
  transportError
} from "./fixtures/FakeHttp.js"

const garminTokens = {
  accessToken: Redacted.make("uat-token-1111"),
  refreshToken: null,
  tokenSecret: Redacted.make("uat-secret-2222"),
  expiresAt: null,
  scopes: ""
}

/** Every value that must stay out of errors. */
const secrets = [
  "client-secret-456",
  "access-token-aaaa",
  "refresh-token-rrrr",
  "uat-token-1111",
  "uat-secret-2222",
  "rts-def-secret",
  "code-or-verifier-1234",
  "pkce-verifier-5678"
]

interface Operation {
  readonly label: string
  readonly provider: string
  /** What a 2xx reply is read as: a token reply, another JSON document, or nothing at all. */
  readonly reads: "tokens" | "form" | "json" | "nothing"
  /** The secrets of the operation's input, which a provider could quote back. */
  readonly secrets: ReadonlyArray<string>
  readonly run: Effect.Effect<unknown, ProviderError, HttpClient.HttpClient>
}

const exchangeInput = {
  credentials,
  endpoints,
  callbackUrl,
  code: "code-or-verifier-1234",
  codeVerifier: "pkce-verifier-5678",
  requestToken: "rt-abc",
  requestTokenSecret: Redacted.make("rts-def-secret")
}

const exchangeSecrets = ["client-secret-456", "code-or-verifier-1234", "pkce-verifier-5678", "rts-def-secret"]
const oauth2Secrets = ["client-secret-456", "access-token-aaaa", "refresh-token-rrrr"]
const garminSecrets = ["client-secret-456", "uat-token-1111", "uat-secret-2222"]

const oauth2Operations = (adapter: ProviderAdapter): ReadonlyArray<Operation> => [
  {
    label: "exchange",
    provider: adapter.provider,
    reads: "tokens",
    secrets: exchangeSecrets,
    run: adapter.exchange(exchangeInput)
  },
  {
    label: "refresh",
    provider: adapter.provider,
    reads: "tokens",
    secrets: oauth2Secrets,
    run: adapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() })
  },
  {
    label: "providerUserId",
    provider: adapter.provider,
    reads: "json",
    secrets: oauth2Secrets,
    run: adapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() })
  }
]

const operations: ReadonlyArray<Operation> = [
  ...oauth2Operations(FitbitAdapter),
  {
    label: "revoke",
    provider: "Fitbit",
    reads: "nothing",
    secrets: oauth2Secrets,
    run: FitbitAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens() })
  },
  ...oauth2Operations(WhoopAdapter),
  {
    label: "revoke",
    provider: "WHOOP",
    reads: "nothing",
    secrets: oauth2Secrets,
    run: WhoopAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens() })
  },
  ...oauth2Operations(DexcomAdapter),
  {
    label: "startAuthorization",
    provider: "Garmin",
    reads: "form",
    secrets: ["client-secret-456", "pkce-verifier-5678"],
    run: GarminAdapter.startAuthorization({
      credentials,
      endpoints,
      callbackUrl,
      state: "state-abcdefgh",
      scopes: [],
      codeVerifier: "pkce-verifier-5678"
    })
  },
  {
    label: "exchange",
    provider: "Garmin",
    reads: "form",
    secrets: exchangeSecrets,
    run: GarminAdapter.exchange(exchangeInput)
  },
  {
    label: "providerUserId",
    provider: "Garmin",
    reads: "json",
    secrets: garminSecrets,
    run: GarminAdapter.providerUserId({ credentials, endpoints, tokens: garminTokens })
  },
  {
    label: "revoke",
    provider: "Garmin",
    reads: "nothing",
    secrets: garminSecrets,
    run: GarminAdapter.revoke({ credentials, endpoints, tokens: garminTokens })
  }
]

/** The provider's own error body, quoting `text`. */
const errorBody = (provider: string, text: string): unknown => {
  switch (provider) {
    case "Fitbit":
      // the Google Health API's body (`google.rpc.Status`)
      return { error: { code: 401, message: text, status: "UNAUTHENTICATED" } }
    case "Garmin":
      return { errorMessage: text }
    default:
      return { error: "invalid_request", error_description: text }
  }
}

const failWith = (op: Operation, respond: Responder) =>
  op.run.pipe(Effect.provide(fakeHttp(respond).layer), Effect.flip)

const expectNoSecrets = (error: ProviderError) => {
  const rendered = [error.message, String(error), JSON.stringify(error), JSON.stringify(error.cause ?? null)]
  for (const secret of secrets) {
    for (const r of rendered) expect(r).not.toContain(secret)
  }
}

describe.each(operations.map((op) => [`${op.provider} ${op.label}`, op] as const))("%s", (_, op) => {
  it.effect("429 carries Retry-After", () =>
    Effect.gen(function*() {
      const error = yield* failWith(op, () =>
        json(429, errorBody(op.provider, "Too Many Requests"), { "retry-after": "120" }))
      expect(error).toMatchObject({ _tag: "ProviderError", provider: op.provider, status: 429, retryAfterSeconds: 120 })
      expect(error.message).toContain("rate limited")
    }))

  it.effect("429 reads Fitbit-Rate-Limit-Reset and X-RateLimit-Reset", () =>
    Effect.gen(function*() {
      const fitbit = yield* failWith(op, () =>
        new Response(null, { status: 429, headers: { "Fitbit-Rate-Limit-Reset": "2216" } }))
      expect(fitbit.retryAfterSeconds).toBe(2216)
      const whoop = yield* failWith(op, () =>
        new Response(null, { status: 429, headers: { "X-RateLimit-Reset": "3" } }))
      expect(whoop.retryAfterSeconds).toBe(3)
    }))

  it.effect("429 reads an HTTP-date Retry-After", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-03-01T12:00:00Z"))
      const error = yield* failWith(op, () =>
        new Response(null, { status: 429, headers: { "retry-after": "Sun, 01 Mar 2026 12:01:30 GMT" } }))
      expect(error.retryAfterSeconds).toBe(90)
    }))

  it.effect("5xx keeps the status", () =>
    Effect.gen(function*() {
      const error = yield* failWith(op, () => text(503, "<html>Service Unavailable</html>", "text/html"))
      expect(error).toMatchObject({ provider: op.provider, status: 503 })
      expect(error.code).toBeUndefined()
      expect(error.retryAfterSeconds).toBeUndefined()
    }))

  it.effect("a transport error becomes a ProviderError without the request", () =>
    Effect.gen(function*() {
      const http = fakeHttp((sent) => Effect.fail(transportError(sent.request)))
      const error = yield* op.run.pipe(Effect.provide(http.layer), Effect.flip)
      expect(error).toMatchObject({ _tag: "ProviderError", provider: op.provider })
      expect(error.status).toBeUndefined()
      expect(error.message).toContain("Transport error")
      expect(error.cause).toBeInstanceOf(Error)
    }))

  it.effect("gives up after 10 seconds", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(failWith(op, () => Effect.never))
      yield* TestClock.adjust("9999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      expect(error.message).toContain("timed out after 10 seconds")
    }))

  it.effect("secrets quoted back by the provider stay out of the error", () =>
    Effect.gen(function*() {
      const error = yield* failWith(op, (sent) =>
        json(401, errorBody(op.provider, `you sent ${sent.body} ${op.secrets.join(" ")}`)))
      expect(error.status).toBe(401)
      expect(error.message).toContain("[redacted]")
      expectNoSecrets(error)
    }))

  if (op.reads !== "nothing") {
    it.effect("a reply that is not in the provider's shape is malformed", () =>
      Effect.gen(function*() {
        const notJson = yield* failWith(op, () => text(200, op.reads === "form" ? "" : "{not json"))
        expect(notJson.message).toMatch(/: malformed response/)
        expect(notJson.status).toBeUndefined()
        const wrongShape = yield* failWith(op, () =>
          op.reads === "form"
            ? text(200, "oauth_token=uat-token-1111", "application/x-www-form-urlencoded")
            : json(200, { access_token: "access-token-aaaa", refresh_token: "refresh-token-rrrr", expires_in: "soon" }))
        expect(wrongShape.message).toMatch(/^\w+ [\w ]+: malformed response \(invalid: /)
        expectNoSecrets(wrongShape)
      }))
  }
})

describe("malformed token replies", () => {
  it.effect("name the failing fields, never the values", () =>
    Effect.gen(function*() {
      const error = yield* failWith(operations[0], () =>
        json(200, { access_token: "access-token-aaaa", refresh_token: "refresh-token-rrrr", expires_in: "soon" }))
      expect(error.message).toBe("Fitbit token exchange: malformed response (invalid: expires_in, token_type)")
    }))
})
