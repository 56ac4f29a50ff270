/**
 * Endpoints whose capability is not built yet (10-14, 21, 22) end to end: with valid input and the
 * right credential they answer 501 with the JSON error body, never a stubbed success; they still
 * check credentials and still validate their input.
 */
import { expect, it } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { specEndpoints } from "./fixtures/Endpoints.js"
import type { Method, RequestOptions } from "./fixtures/Http.js"
import { expectError, preview, send, unknownId } from "./fixtures/Http.js"

interface Call {
  readonly number: number
  readonly method: Method
  readonly path: string
  readonly options: RequestOptions
}

/** A valid request to each not-built endpoint, for user `userId`. */
const notBuiltCalls = (userId: string): ReadonlyArray<Call> => {
  const user = `/api/v1/users/${userId}`
  const range = "from=2026-01-01&to=2026-01-07"
  return [
    { number: 10, method: "GET", path: `${user}/connections/activity?${range}`, options: {} },
    { number: 11, method: "GET", path: `${user}/connections/${unknownId()}/activity/2026-01-05`, options: {} },
    { number: 12, method: "GET", path: `${user}/connections/activity-load?${range}&provider=WHOOP`, options: {} },
    { number: 13, method: "GET", path: `${user}/connections/${unknownId()}/activity-load/2026-01-05`, options: {} },
    { number: 14, method: "GET", path: `${user}/connections/glucose?${range}&provider=Dexcom`, options: {} },
    { number: 21, method: "GET", path: `/api/v1/scores/daily?${range}`, options: {} },
    { number: 22, method: "GET", path: `/api/v1/scores/weekly?${range}`, options: {} }
  ]
}

const callNumbers = notBuiltCalls(unknownId()).map((c) => c.number)

const callOf = (number: number, userId: string) => notBuiltCalls(userId).find((c) => c.number === number)!

const withCredential = (c: Call, options: RequestOptions) => send(c.method, c.path, { ...c.options, ...options })

/** The spec's credential of endpoint `number`. */
const credentialOf = (number: number) => specEndpoints.find((e) => e.number === number)!.credential

it.layer(makeTestServer(), { timeout: "120 seconds" })("endpoints not built yet", (it) => {
  it.effect("the not-built endpoints are 10-14, 21 and 22 with the spec's methods", () =>
    Effect.sync(() => {
      expect(callNumbers).toEqual([10, 11, 12, 13, 14, 21, 22])
      for (const number of callNumbers) {
        expect(callOf(number, "u").method, `endpoint ${number}`).toBe(specEndpoints[number - 1]!.method)
      }
    }))

  for (const number of callNumbers) {
    const credential = credentialOf(number)
    const who = credential === "T" ? "with the user's own token" : "without a credential"
    it.effect(`endpoint ${number} answers 501 NotImplemented with a JSON body ${who}`, () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`not-built-${number}`)
        const c = callOf(number, user.id)
        const reply = yield* withCredential(c, credential === "T" ? { bearer: token } : {})
        expect(reply.status, `${c.method} ${c.path}: ${preview(reply)}`).toBe(501)
        const body = expectError(reply, 501, "NotImplemented")
        expect(Object.keys(body).sort()).toEqual(["_tag", "message"])
        expect(reply.headers["x-request-id"]).toBeDefined()
      }))
  }

  it.effect("not-built user endpoints still answer 401 without a credential or with an API key", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("not-built-401")
      for (const number of callNumbers.filter((n) => credentialOf(n) === "T")) {
        const c = callOf(number, user.id)
        expectError(yield* withCredential(c, {}), 401, "Unauthorized")
        const wrongType = expectError(yield* withCredential(c, { bearer: apiKey }), 401, "Unauthorized")
        expect(wrongType.message, `endpoint ${number}`).toMatch(/wrong credential type/i)
      }
    }))

  it.effect("not-built user endpoints still answer 403 for another user's path", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("not-built-403")
      const other = yield* createUser("not-built-403-other")
      for (const number of callNumbers.filter((n) => credentialOf(n) === "T" && n !== 21 && n !== 22)) {
        const c = callOf(number, other.user.id)
        const reply = yield* withCredential(c, { bearer: token })
        expect(reply.status, `endpoint ${number}: ${preview(reply)}`).toBe(403)
        expectError(reply, 403, "Forbidden")
      }
    }))

  it.effect("not-built endpoints still reject invalid input with 400", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("not-built-400")
      const base = `/api/v1/users/${user.id}`
      const bad: ReadonlyArray<readonly [string, Method, string, RequestOptions]> = [
        ["unknown provider", "POST", `${base}/connections/sessions`, {
          json: { provider: "Polar", redirectUrl: "https://app.example.com/done" }
        }],
        ["missing redirectUrl", "POST", `${base}/connections/sessions`, { json: { provider: "WHOOP" } }],
        ["from after to", "GET", `${base}/connections/activity?from=2026-02-01&to=2026-01-01`, {}],
        ["range over 366 days", "GET", `${base}/connections/activity?from=2025-01-01&to=2026-01-02`, {}],
        ["malformed from", "GET", `${base}/connections/activity-load?from=2026-1-1&to=2026-01-02`, {}],
        ["missing to", "GET", `${base}/connections/glucose?from=2026-01-01`, {}],
        ["unknown provider filter", "GET", `${base}/connections/glucose?from=2026-01-01&to=2026-01-02&provider=x`, {}],
        ["impossible date", "GET", `${base}/connections/${unknownId()}/activity/2026-02-30`, {}],
        ["malformed connection id", "GET", `${base}/connections/not-a-uuid/activity-load/2026-01-01`, {}],
        ["malformed connection id on delete", "DELETE", `${base}/connections/not-a-uuid`, {}],
        ["daily scores without range", "GET", "/api/v1/scores/daily", {}],
        ["weekly scores from after to", "GET", "/api/v1/scores/weekly?from=2026-03-01&to=2026-02-01", {}]
      ]
      for (const [label, method, path, options] of bad) {
        const reply = yield* send(method, path, { ...options, bearer: token })
        expect(reply.status, `${label}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400)
      }
    }))
})
