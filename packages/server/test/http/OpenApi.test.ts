/**
 * The published API description end to end: `/openapi.json` covers every endpoint of the spec
 * with its credential and success statuses, and `/docs` serves the HTML reference.
 */
import { expect, it } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { specEndpoints } from "../fixtures/Endpoints.js"
import { json, preview, send } from "../fixtures/Http.js"

const fetchOpenApi = Effect.map(send("GET", "/openapi.json"), (reply) => {
  expect(reply.status, preview(reply)).toBe(200)
  return json(reply)
})

it.layer(makeTestServer(), { timeout: "120 seconds" })("openapi", (it) => {
  it.effect("GET /openapi.json answers 200 with an OpenAPI 3.1.0 document without a credential", () =>
    Effect.gen(function*() {
      const doc = yield* fetchOpenApi
      expect(doc.openapi).toBe("3.1.0")
      expect(doc.info.title).toBe("PulseBridge API")
      expect(typeof doc.paths).toBe("object")
    }))

  it.effect("the OpenAPI document contains all 24 endpoints of the spec", () =>
    Effect.gen(function*() {
      const doc = yield* fetchOpenApi
      expect(specEndpoints).toHaveLength(24)
      expect(new Set(specEndpoints.map((e) => e.path))).toEqual(
        new Set([
          "/api/v1/users",
          "/api/v1/users/{id}",
          "/api/v1/users/{id}/rotate-token",
          "/api/v1/users/{userId}/connections/sessions",
          "/api/v1/users/{userId}/connections",
          "/api/v1/users/{userId}/connections/{connectionId}",
          "/api/v1/users/{userId}/connections/activity",
          "/api/v1/users/{userId}/connections/{connectionId}/activity/{date}",
          "/api/v1/users/{userId}/connections/activity-load",
          "/api/v1/users/{userId}/connections/{connectionId}/activity-load/{date}",
          "/api/v1/users/{userId}/connections/glucose",
          "/api/v1/users/{userId}/connections/providers",
          "/api/v1/users/{userId}/journal-entries",
          "/api/v1/users/{userId}/journal-entries/scans",
          "/api/v1/users/{userId}/journal-entries/{entryId}",
          "/api/v1/scores/daily",
          "/api/v1/scores/weekly",
          "/api/v1/connections/callback",
          "/api/v1/connections/callback/oauth1"
        ])
      )
      const missing = specEndpoints.filter((e) => doc.paths[e.path]?.[e.method.toLowerCase()] === undefined)
      expect(missing.map((e) => `${e.number} ${e.method} ${e.path}`)).toEqual([])
    }))

  it.effect("each documented endpoint declares the credential of the spec", () =>
    Effect.gen(function*() {
      const doc = yield* fetchOpenApi
      for (const endpoint of specEndpoints) {
        const operation = doc.paths[endpoint.path][endpoint.method.toLowerCase()]
        const schemes = (operation.security ?? []).flatMap((requirement: object) => Object.keys(requirement)).sort()
        const label = `${endpoint.number} ${endpoint.method} ${endpoint.path}`
        if (endpoint.credential === "K") expect(schemes, label).toEqual(["apiKeyBearer", "apiKeyHeader"])
        if (endpoint.credential === "T") expect(schemes, label).toEqual(["userTokenBearer", "userTokenHeader"])
        if (endpoint.credential === "none") expect(schemes, label).toEqual([])
      }
      const schemes = doc.components.securitySchemes
      expect(schemes.apiKeyBearer).toMatchObject({ type: "http", scheme: "bearer" })
      expect(schemes.userTokenBearer).toMatchObject({ type: "http", scheme: "bearer" })
      expect(schemes.apiKeyHeader).toMatchObject({ type: "apiKey", in: "header", name: "X-App-Api-Key" })
      expect(schemes.userTokenHeader).toMatchObject({ type: "apiKey", in: "header", name: "X-User-Token" })
    }))

  it.effect("each documented endpoint declares the success statuses of the spec", () =>
    Effect.gen(function*() {
      const doc = yield* fetchOpenApi
      for (const endpoint of specEndpoints) {
        const operation = doc.paths[endpoint.path][endpoint.method.toLowerCase()]
        const documented = Object.keys(operation.responses).map(Number).filter((status) => status < 400).sort()
        expect(documented, `${endpoint.number} ${endpoint.method} ${endpoint.path}`).toEqual(endpoint.success)
      }
    }))

  it.effect("the OpenAPI document states the body and metadata size limits", () =>
    Effect.gen(function*() {
      const doc = yield* fetchOpenApi
      expect(doc.info.description).toContain("1 MiB")
      expect(doc.paths["/api/v1/users"].post.description).toContain("16 KiB")
    }))

  it.effect("GET /docs answers 200 with an HTML page", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/docs")
      expect(reply.status).toBe(200)
      expect(reply.headers["content-type"]).toMatch(/^text\/html/)
      expect(reply.text.toLowerCase()).toContain("<html")
    }))
})
