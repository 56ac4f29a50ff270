/**
 * In sandbox mode the server calls its own simulators (the token exchange of a connect callback, Garmin's
 * request token, the portal sandbox page's consent and fault calls). Those calls come from this machine's
 * address, the one a newcomer's browser and scripts use too: they must not draw from that address's bucket,
 * or walking the consent pages quickly ends in `exchange_failed` and a 502. The wire is the subject: the
 * buckets are read back from the `RateLimit-*` headers of the client's own answers, and a header that merely
 * claims to be the server's own gets an outsider no exemption.
 */
import { expect, layer } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import { createApp, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { selfCallHeader } from "../../src/platform/SelfCalls.js"
import type { RateLimitSettings } from "../../src/platform/ServerConfig.js"
import { connect, listConnections, simulatedUser } from "../fixtures/Connect.js"
import { preview, send } from "../fixtures/Http.js"
import { loggedIn } from "../portal/fixtures.js"

const providers: ReadonlyArray<Provider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]

/**
 * 20 requests per address, refilled slowly (one token per 10 s): the client's own requests below (a login and
 * three per consent walk, 13) fit, with room for a refill or two; the server's own calls on top would not.
 */
const limits: RateLimitSettings = {
  enabled: true,
  apiKey: { perSecond: 0.1, burst: 100 },
  userToken: { perSecond: 0.1, burst: 100 },
  address: { perSecond: 0.1, burst: 20 }
}

layer(makeTestServer({ sandbox: true, rateLimits: limits, syncCron: "0 0 1 1 *" }), {
  timeout: "240 seconds",
  excludeTestServices: true
})("rate limits and the sandbox's calls to itself", (it) => {
  it.effect(
    "connecting the four providers quickly, by script and by the portal's sandbox page, succeeds; the address's bucket pays only for the client's requests",
    () =>
      Effect.gen(function*() {
        // The portal's sandbox page: its login draws from the address (1); its connects make the consent and the
        // token exchange themselves, from the server to its simulators.
        const { client } = yield* loggedIn
        const { app } = yield* createApp("self calls")
        const made = yield* client.post("/portal/api/sandbox/test-users", { json: { appId: app.id } })
        expect(made.status, made.text).toBe(201)
        const portalUser = made.body.user.id as string
        for (const provider of providers) {
          const reply = yield* client.post(`/portal/api/sandbox/users/${portalUser}/connections`, {
            json: { provider }
          })
          expect(reply.status, `${provider}: ${reply.text}`).toBe(201)
          expect(reply.body).toMatchObject({ provider, status: "Active" })
        }

        // A script walking the consent pages as a browser would: three requests from this address per provider (12).
        const { token, user } = yield* createUser(`self-calls-${simulatedUser("u")}`)
        for (const provider of providers) {
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser(provider.toLowerCase()))
          expect(connectionId).toMatch(/^[0-9a-f-]{36}$/)
        }
        const listed = yield* listConnections(user.id, token)
        expect(listed.map((c: any) => c.provider).sort()).toEqual([...providers].sort())
        expect(listed.every((c: any) => c.status === "Active")).toBe(true)

        // 13 requests drawn, a token or two refilled meanwhile: the server's calls to its simulators took none.
        const probe = yield* send("GET", "/no-such-route")
        expect(probe.status, preview(probe)).toBe(404)
        expect(probe.headers["ratelimit-limit"]).toBe("20")
        expect(Number(probe.headers["ratelimit-remaining"])).toBeGreaterThanOrEqual(20 - 13 - 1)
      }),
    200_000
  )

  it.effect("a request that only claims to be the server's own still draws from its address", () =>
    Effect.gen(function*() {
      // Answered or refused, as the address's bucket stands: either way the answer shows the bucket it drew from.
      for (const claim of [crypto.randomBytes(32).toString("base64url"), "", "x"]) {
        const reply = yield* send("GET", "/sandbox/analyzer/_sim/faults", { headers: { [selfCallHeader]: claim } })
        expect([200, 429], preview(reply)).toContain(reply.status)
        expect(reply.headers["ratelimit-limit"], preview(reply)).toBe("20")
      }
    }))
})
