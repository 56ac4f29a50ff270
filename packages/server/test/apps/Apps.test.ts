/**
 * The apps services over a real database, without the HTTP layer: the named errors of unknown
 * apps and keys, revocation, and provider credentials stored sealed and read back opened.
 */
import { expect, it } from "@effect/vitest"
import { TestDatabaseLive } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { Authentication } from "../../src/access/Authentication.js"
import { ApiKeyNotFound, AppNotFound, Apps } from "../../src/apps/Apps.js"
import { ProviderCredentials } from "../../src/apps/ProviderCredentials.js"
import { makeSecretBox, SecretBox } from "../../src/platform/SecretBox.js"

const ServicesLive = Layer.mergeAll(Apps.Default, Authentication.Default, ProviderCredentials.Default).pipe(
  Layer.provide(Layer.succeed(SecretBox, makeSecretBox("apps-test-key"))),
  Layer.provideMerge(TestDatabaseLive)
)

it.layer(ServicesLive, { timeout: "120 seconds" })("apps", (it) => {
  it.effect("an app is created with one key carrying every permission, and counted", () =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const before = yield* apps.count
      const created = yield* apps.create("counted")
      expect(yield* apps.count).toBe(before + 1)
      expect(yield* apps.get(created.app.id)).toEqual(Option.some(created.app))
      const keys = yield* apps.listApiKeys(created.app.id)
      expect(keys.map((key) => [key.id, key.permissions, key.revokedAt])).toEqual([
        [created.apiKeyId, ["users:read", "users:write", "webhooks:read", "webhooks:write"], null]
      ])
      expect(yield* (yield* Authentication).apiKey(created.apiKey)).toEqual(
        Option.some({
          appId: created.app.id,
          apiKeyId: created.apiKeyId,
          permissions: ["users:read", "users:write", "webhooks:read", "webhooks:write"]
        })
      )
    }))

  it.effect("an unknown or malformed app id fails with AppNotFound naming the id", () =>
    Effect.gen(function*() {
      const apps = yield* Apps
      for (const appId of [crypto.randomUUID(), "not-an-id"]) {
        expect(yield* apps.get(appId)).toEqual(Option.none())
        const error = yield* Effect.flip(apps.createApiKey(appId, ["users:read"]))
        expect(error).toBeInstanceOf(AppNotFound)
        expect(error.message).toBe(`no app with id ${appId}`)
        expect(yield* Effect.flip(apps.listApiKeys(appId))).toEqual(new AppNotFound({ appId }))
      }
    }))

  it.effect("revoking a key twice keeps the first time; an unknown or malformed key id fails with ApiKeyNotFound", () =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const { app } = yield* apps.create("revocations")
      const key = yield* apps.createApiKey(app.id, ["users:read"])
      const first = yield* apps.revokeApiKey(key.id)
      expect(first.revokedAt).toBeInstanceOf(Date)
      expect((yield* apps.revokeApiKey(key.id)).revokedAt).toEqual(first.revokedAt)
      expect(yield* (yield* Authentication).apiKey(key.apiKey)).toEqual(Option.none())
      for (const apiKeyId of [crypto.randomUUID(), "not-an-id"]) {
        const error = yield* Effect.flip(apps.revokeApiKey(apiKeyId))
        expect(error).toBeInstanceOf(ApiKeyNotFound)
        expect(error.message).toBe(`no API key with id ${apiKeyId}`)
      }
    }))

  it.effect("provider credentials are listed without the secret, read back with it, and replaced by a second set", () =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const credentials = yield* ProviderCredentials
      const { app } = yield* apps.create("credentials")
      expect(yield* credentials.get(app.id, "Fitbit")).toEqual(Option.none())
      yield* credentials.set(app.id, "Fitbit", {
        clientId: "first",
        clientSecret: Redacted.make("first-secret"),
        redirectUrlPrefixes: ["https://a.example/", "https://b.example/cb"],
        webhookVerificationCode: "code"
      })
      yield* credentials.set(app.id, "Fitbit", {
        clientId: "second",
        clientSecret: Redacted.make("second-secret"),
        scopes: "activity sleep",
        apiBaseUrl: "https://api.example"
      })
      const listed = yield* credentials.list(app.id)
      expect(listed).toHaveLength(1)
      expect(listed[0]).toMatchObject({
        provider: "Fitbit",
        clientId: "second",
        scopes: "activity sleep",
        authBaseUrl: null,
        tokenBaseUrl: null,
        apiBaseUrl: "https://api.example",
        redirectUrlPrefixes: [],
        webhookVerificationCode: null
      })
      expect(Object.keys(listed[0]!)).not.toContain("clientSecret")
      expect(Object.keys(listed[0]!)).not.toContain("clientSecretSealed")
      const stored = yield* credentials.get(app.id, "Fitbit")
      expect(Option.map(stored, (s) => Redacted.value(s.clientSecret))).toEqual(Option.some("second-secret"))
      expect(Option.map(stored, (s) => s.clientId)).toEqual(Option.some("second"))
    }))

  it.effect("redirect URL prefixes come back in order", () =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const credentials = yield* ProviderCredentials
      const { app } = yield* apps.create("prefixes")
      const prefixes = ["https://a.example/", "https://b.example/cb"]
      yield* credentials.set(app.id, "WHOOP", {
        clientId: "id",
        clientSecret: Redacted.make("s"),
        redirectUrlPrefixes: prefixes
      })
      const stored = yield* credentials.get(app.id, "WHOOP")
      expect(Option.map(stored, (s) => s.redirectUrlPrefixes)).toEqual(Option.some(prefixes))
    }))
})
