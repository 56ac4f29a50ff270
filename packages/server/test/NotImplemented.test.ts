/**
 * Endpoints whose capability is not built yet (16-20) end to end: with valid input and the
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

const mealPhoto = () => {
  const form = new FormData()
  // The first bytes of a JPEG file.
  form.append(
    "image",
    new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])], { type: "image/jpeg" }),
    "meal.jpg"
  )
  form.append("entryKind", "Meal")
  form.append("consumedAtUtc", "2026-01-05T12:30:00.000Z")
  form.append("timezone", "Europe/Berlin")
  form.append("notes", "lunch")
  return form
}

/** A valid request to each not-built endpoint, for user `userId`. */
const notBuiltCalls = (userId: string): ReadonlyArray<Call> => {
  const user = `/api/v1/users/${userId}`
  return [
    {
      number: 16,
      method: "POST",
      path: `${user}/journal-entries`,
      options: {
        json: {
          entryKind: "Coffee",
          consumedAtUtc: "2026-01-05T08:00:00Z",
          nutrients: { caffeineMg: 80, volumeMl: 200 }
        }
      }
    },
    { number: 17, method: "POST", path: `${user}/journal-entries/scans`, options: { formData: mealPhoto() } },
    { number: 18, method: "GET", path: `${user}/journal-entries?date=2026-01-05`, options: {} },
    { number: 19, method: "GET", path: `${user}/journal-entries/${unknownId()}`, options: {} },
    {
      number: 20,
      method: "PATCH",
      path: `${user}/journal-entries/${unknownId()}`,
      options: { json: { items: [{ name: "Apple", quantity: 1, unit: "piece", nutrients: { caloriesKcal: 95 } }] } }
    }
  ]
}

const callNumbers = notBuiltCalls(unknownId()).map((c) => c.number)

const callOf = (number: number, userId: string) => notBuiltCalls(userId).find((c) => c.number === number)!

const withCredential = (c: Call, options: RequestOptions) => send(c.method, c.path, { ...c.options, ...options })

/** The spec's credential of endpoint `number`. */
const credentialOf = (number: number) => specEndpoints.find((e) => e.number === number)!.credential

it.layer(makeTestServer(), { timeout: "120 seconds" })("endpoints not built yet", (it) => {
  it.effect("the not-built endpoints are 16-20 with the spec's methods", () =>
    Effect.sync(() => {
      expect(callNumbers).toEqual([16, 17, 18, 19, 20])
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
      for (const number of callNumbers.filter((n) => credentialOf(n) === "T")) {
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
        ["unknown entry kind", "POST", `${base}/journal-entries`, {
          json: { entryKind: "Snack", consumedAtUtc: "2026-01-05T08:00:00Z" }
        }],
        ["negative nutrient", "POST", `${base}/journal-entries`, {
          json: { entryKind: "Meal", consumedAtUtc: "2026-01-05T08:00:00Z", nutrients: { caloriesKcal: -1 } }
        }],
        ["journal list without date", "GET", `${base}/journal-entries`, {}],
        ["malformed entry id", "GET", `${base}/journal-entries/not-a-uuid`, {}],
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
