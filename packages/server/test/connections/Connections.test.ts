/**
 * The built connection reads end to end: the connection list (endpoint 8) and the provider
 * listing (endpoint 15) of a user without connections, called with the user's own token.
 */
import { expect, it } from "@effect/vitest"
import type { AppId } from "@pulsebridge/domain"
import { apiClient, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ProviderCredentials } from "../../src/apps/ProviderCredentials.js"
import { json, preview, send } from "../fixtures/Http.js"

/** Every data type the spec names, plus daily activity of the two daily-activity providers. */
const knownDataTypes = [
  "DailyActivity",
  "Sleep",
  "ActivitySession",
  "Recovery",
  "ActivityLoadDaily",
  "ProfileSnapshot",
  "BodyMeasurementSnapshot",
  "GlucoseReading",
  "GlucoseEvent",
  "GlucoseCalibration"
]

it.layer(makeTestServer(), { timeout: "120 seconds" })("connections", (it) => {
  it.effect("a new user's connection list is an empty array", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("no-connections")
      const reply = yield* send("GET", `/api/v1/users/${user.id}/connections`, { bearer: token })
      expect(reply.status, preview(reply)).toBe(200)
      expect(json(reply)).toEqual([])
      const client = yield* apiClient(token)
      const [connections, response] = yield* client.connections.list({ path: { userId: user.id }, withResponse: true })
      expect(response.status).toBe(200)
      expect(connections).toEqual([])
    }))

  it.effect("outside sandbox mode a session for a provider the app has not configured is a 400 saying so", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("unconfigured")
      const reply = yield* send("POST", `/api/v1/users/${user.id}/connections/sessions`, {
        bearer: token,
        json: { provider: "Fitbit", redirectUrl: "https://app.example.com/done" }
      })
      expect(reply.status, preview(reply)).toBe(400)
      expect(json(reply)).toMatchObject({ _tag: "BadRequest" })
      expect((json(reply) as { message: string }).message).toContain("no Fitbit credentials")
    }))

  it.effect("the provider listing has exactly Fitbit, Garmin, WHOOP and Dexcom, each without a connection", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("listing")
      const reply = yield* send("GET", `/api/v1/users/${user.id}/connections/providers`, { bearer: token })
      expect(reply.status, preview(reply)).toBe(200)
      const entries: Array<any> = json(reply)
      expect(entries).toHaveLength(4)
      expect(entries.map((e) => [e.provider.name, e.provider.slug, e.provider.authType])).toEqual([
        ["Fitbit", "fitbit", "OAuth2"],
        ["Garmin", "garmin", "OAuth1"],
        ["WHOOP", "whoop", "OAuth2"],
        ["Dexcom", "dexcom", "OAuth2"]
      ])
      for (const entry of entries) {
        const label = entry.provider.name
        expect(Object.keys(entry).sort(), label).toEqual(["connection", "provider"])
        expect(entry.connection, label).toBeNull()
        expect(Object.keys(entry.provider).sort(), label).toEqual(
          ["authType", "logoUrl", "name", "slug", "supportedDataTypes"]
        )
        expect(entry.provider.logoUrl === null || typeof entry.provider.logoUrl === "string", label).toBe(true)
        expect(Array.isArray(entry.provider.supportedDataTypes), label).toBe(true)
        expect(entry.provider.supportedDataTypes.length, label).toBeGreaterThan(0)
        for (const dataType of entry.provider.supportedDataTypes) expect(knownDataTypes, label).toContain(dataType)
      }
    }))

  it.effect("Oura and Withings are listed, and connect, only for an app that configured their credentials", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("listing-beyond")
      const names = Effect.map(
        send("GET", `/api/v1/users/${user.id}/connections/providers`, { bearer: token }),
        (reply) => (json(reply) as Array<any>).map((entry) => entry.provider.name)
      )
      expect(yield* names).toEqual(["Fitbit", "Garmin", "WHOOP", "Dexcom"])
      const session = (provider: string) =>
        send("POST", `/api/v1/users/${user.id}/connections/sessions`, {
          bearer: token,
          json: { provider, redirectUrl: "https://app.example.com/done" }
        })
      const refused = yield* session("Withings")
      expect(refused.status, preview(refused)).toBe(400)
      expect((json(refused) as { message: string }).message).toContain("no Withings credentials")

      yield* (yield* ProviderCredentials).set(user.appId as AppId, "Withings", {
        clientId: "withings-client",
        clientSecret: Redacted.make("withings-secret")
      })
      expect(yield* names).toEqual(["Fitbit", "Garmin", "WHOOP", "Dexcom", "Withings"])
      const started = yield* session("Withings")
      expect(started.status, preview(started)).toBe(200)
      const url = new URL((json(started) as { authorizationUrl: string }).authorizationUrl)
      expect(`${url.origin}${url.pathname}`).toBe("https://account.withings.com/oauth2_user/authorize2")
      expect(url.searchParams.get("client_id")).toBe("withings-client")
    }))

  it.effect("the provider listing names the load and glucose data types of the spec", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("listing-types")
      const client = yield* apiClient(token)
      const entries = yield* client.connections.providers({ path: { userId: user.id } })
      const typesOf = (name: string) => entries.find((e) => e.provider.name === name)!.provider.supportedDataTypes
      expect(typesOf("WHOOP")).toEqual(expect.arrayContaining([
        "Sleep",
        "ActivitySession",
        "Recovery",
        "ActivityLoadDaily",
        "ProfileSnapshot",
        "BodyMeasurementSnapshot"
      ]))
      expect(typesOf("Dexcom")).toEqual(
        expect.arrayContaining(["GlucoseReading", "GlucoseEvent", "GlucoseCalibration"])
      )
      expect(typesOf("Fitbit")).toContain("DailyActivity")
      expect(typesOf("Garmin")).toContain("DailyActivity")
    }))
})
