/**
 * What all simulators share: the factory, mounting under a prefix, every fault knob per
 * provider, the call log and control routes, stores and restarts, serving, determinism.
 */
import { HttpMiddleware, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { FaultKind } from "../src/index.js"
import {
  fileStore,
  fitbitDailySummary,
  garminDaily,
  makeSimulator,
  memoryStore,
  providerUserIds,
  serveHttpApp,
  serveSimulator,
  simulatorEndpoints,
  tokenFingerprint
} from "../src/index.js"
import {
  bearer,
  fitbitAuthorizeUrl,
  fitbitConnect,
  formAction,
  garminConnect,
  get,
  HttpLive,
  ManualClock,
  options,
  providerCases,
  send,
  sendSigned,
  served,
  signed,
  whoopConnect
} from "./simulatorHarness.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-sim-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const pathOf = (p: string) => p.split("?")[0]!

describe("simulators", () => {
  it("makeSimulator builds each provider's simulator and its adapter endpoints are its base URL", () => {
    for (const provider of ["Fitbit", "Garmin", "WHOOP", "Dexcom"] as const) {
      const sim = makeSimulator(provider, options(new ManualClock(), { baseUrl: "https://pb.example/sandbox/x/" }))
      expect(sim.provider).toBe(provider)
      expect(sim.baseUrl).toBe("https://pb.example/sandbox/x")
      expect(simulatorEndpoints(sim)).toEqual({
        authBaseUrl: "https://pb.example/sandbox/x",
        tokenBaseUrl: "https://pb.example/sandbox/x",
        apiBaseUrl: "https://pb.example/sandbox/x"
      })
    }
  })

  it("provider user ids are derived from the consent name, in each provider's format, the same everywhere", () => {
    expect(providerUserIds.fitbit("sandbox-user")).toBe("ZX3ZLE")
    expect(providerUserIds.whoop("sandbox-user")).toBe(87314875)
    expect(providerUserIds.garmin("sandbox-user")).toBe("80071a77dfab36da9a5ef33d8a1bed9c")
    expect(providerUserIds.dexcom("sandbox-user")).toBe(
      "583503426d0c14633331ed2cedc3b5f29fc8f412d391e8fe6807b0919c377ec9"
    )
    expect(providerUserIds.fitbit("someone")).toMatch(/^[0-9A-Z]{6}$/)
    expect(providerUserIds.fitbit("someone")).not.toBe(providerUserIds.fitbit("sandbox-user"))
  })

  it("synthetic values are fixed for a seed, user and date on every machine", () => {
    const fitbit = fitbitDailySummary("pulsebridge", "ZX3ZLE", "2025-06-10", 1, "METRIC").summary
    expect([fitbit.steps, fitbit.caloriesOut, fitbit.distances[0]!.distance]).toEqual([3722, 2411, 2.75])
    const garmin = garminDaily("pulsebridge", "80071a77dfab36da9a5ef33d8a1bed9c", "2025-06-10", 1)
    expect([garmin.summaryId, garmin.steps, garmin.startTimeInSeconds]).toEqual([
      "x8c3f37a-68472828-15180",
      8209,
      1749493800
    ])
  })

  it.scopedLive("every simulator works mounted under a prefix, with URLs and signatures under that prefix", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const sims = {
        fitbit: makeSimulator("Fitbit", options(clock)),
        garmin: makeSimulator("Garmin", options(clock)),
        whoop: makeSimulator("WHOOP", options(clock)),
        dexcom: makeSimulator("Dexcom", options(clock))
      }
      const app = HttpRouter.empty.pipe(
        HttpRouter.get("/health", HttpServerResponse.text("ok")),
        HttpRouter.mountApp("/sandbox/fitbit", sims.fitbit.app),
        HttpRouter.mount("/sandbox/garmin", sims.garmin.router),
        HttpRouter.mountApp("/sandbox/whoop", sims.whoop.app),
        HttpRouter.mount("/sandbox/dexcom", sims.dexcom.router),
        Effect.catchAll(() => Effect.succeed(HttpServerResponse.empty({ status: 404 })))
      )
      const server = yield* serveHttpApp(app)
      for (const [slug, sim] of Object.entries(sims)) sim.control.setBaseUrl(`${server.baseUrl}/sandbox/${slug}`)
      for (const c of providerCases) {
        const base = `${server.baseUrl}/sandbox/${c.provider.toLowerCase()}`
        const call = yield* c.connect(base)
        const reply = yield* call(c.dataPath)
        expect({ provider: c.provider, status: reply.status }).toEqual({ provider: c.provider, status: 200 })
      }
      const page = yield* get(fitbitAuthorizeUrl(`${server.baseUrl}/sandbox/fitbit`))
      expect(formAction(page.text).startsWith(`${server.baseUrl}/sandbox/fitbit/o/oauth2/v2/auth?`)).toBe(true)
      expect(sims.fitbit.control.calls({ path: "/token" })).toHaveLength(1)
      expect((yield* get(`${server.baseUrl}/health`)).text).toBe("ok")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("mounted with includePrefix behind a middleware that reads JSON bodies, control routes still work", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const whoop = makeSimulator("WHOOP", options(clock))
      const readsBodies = HttpMiddleware.make((app) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (request.method === "POST" && request.headers["content-type"] === "application/json") {
            yield* Effect.orElseSucceed(request.text, () => "")
          }
          return yield* app
        })
      )
      const app = HttpRouter.empty.pipe(
        HttpRouter.mountApp("/sandbox/whoop", whoop.app, { includePrefix: true }),
        Effect.catchAll(() => Effect.succeed(HttpServerResponse.empty({ status: 404 }))),
        readsBodies
      )
      const server = yield* serveHttpApp(app)
      const base = `${server.baseUrl}/sandbox/whoop`
      whoop.control.setBaseUrl(base)
      const set = yield* send("POST", `${base}/_sim/faults`, {
        json: { path: "/developer/v2/cycle", kind: "serverError" }
      })
      expect(set.status).toBe(200)
      const tokens = yield* whoopConnect(base)
      expect((yield* get(`${base}/developer/v2/cycle`, bearer(tokens.access))).status).toBe(500)
      expect((yield* get(`${base}/developer/v2/cycle`, bearer(tokens.access))).status).toBe(200)
      expect(whoop.control.calls().map((c) => c.path)).toContain("/oauth/oauth2/token")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("mounted without includePrefix behind such a middleware, a body request fails fast and says why", () =>
    Effect.gen(function*() {
      const whoop = makeSimulator("WHOOP", options(new ManualClock()))
      const readsBodies = HttpMiddleware.make((app) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (request.method === "POST") yield* Effect.orElseSucceed(request.text, () => "")
          return yield* app
        })
      )
      const app = HttpRouter.empty.pipe(
        HttpRouter.mountApp("/sandbox/whoop", whoop.app),
        Effect.catchAll(() => Effect.succeed(HttpServerResponse.empty({ status: 404 }))),
        readsBodies
      )
      const server = yield* serveHttpApp(app)
      const base = `${server.baseUrl}/sandbox/whoop`
      whoop.control.setBaseUrl(base)
      const reply = yield* send("POST", `${base}/_sim/faults`, { json: { path: "*", kind: "serverError" } })
      expect(reply.status).toBe(500)
      expect(reply.json().error_description).toContain("includePrefix")
      expect((yield* get(`${base}/oauth/oauth2/auth?client_id=nobody`)).status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("Garmin accepts signatures over the address a client used when it differs from the public base", () =>
    Effect.gen(function*() {
      const sim = makeSimulator("Garmin", options(new ManualClock()))
      const server = yield* serveSimulator(sim, { keepBaseUrl: true })
      sim.control.setBaseUrl("https://public.example/")
      const uat = yield* garminConnect(server.baseUrl)
      const reply = yield* sendSigned("GET", `${server.baseUrl}/wellness-api/rest/user/id`, uat)
      expect(reply.status).toBe(200)
      const elsewhere = yield* send("GET", `${server.baseUrl}/wellness-api/rest/user/id`, {
        headers: { authorization: signed("GET", "https://other.example/wellness-api/rest/user/id", uat).Authorization }
      })
      expect(elsewhere.status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("with rateLimits off no 429 is sent past the per-minute quota", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock(), { rateLimits: false })
      const tokens = yield* fitbitConnect(base)
      const statuses = new Set<number>()
      for (let i = 0; i < 301; i++) {
        statuses.add((yield* get(`${base}/v4/users/me/identity`, bearer(tokens.access))).status)
      }
      expect([...statuses]).toEqual([200])
    }).pipe(Effect.provide(HttpLive)))

  for (const c of providerCases) {
    describe(`${c.provider} fault knobs`, () => {
      const dataPath = pathOf(c.dataPath)

      it.scopedLive("rateLimit answers 429 (with Retry-After but at Google) for the next N matching calls, set over HTTP", () =>
        Effect.gen(function*() {
          const { base, sim } = yield* served(c.provider, new ManualClock())
          const call = yield* c.connect(base)
          const set = yield* send("POST", `${base}/_sim/faults`, {
            json: { path: dataPath, kind: "rateLimit", count: 2, retryAfterSeconds: 7 }
          })
          expect(set.status).toBe(200)
          for (let i = 0; i < 2; i++) {
            const reply = yield* call(c.dataPath)
            expect(reply.status).toBe(429)
            // Google's 429 carries no Retry-After
            expect(reply.headers["retry-after"]).toBe(c.provider === "Fitbit" ? undefined : "7")
          }
          expect((yield* call(c.dataPath)).status).toBe(200)
          expect(sim.control.faults()).toEqual([])
          expect(sim.control.calls({ path: dataPath }).map((r) => r.fault)).toEqual([
            "rateLimit",
            "rateLimit",
            undefined
          ])
        }).pipe(Effect.provide(HttpLive)))

      it.scopedLive("serverError, expiredToken and malformedJson answer in the provider's way once each", () =>
        Effect.gen(function*() {
          const { base, sim } = yield* served(c.provider, new ManualClock())
          const call = yield* c.connect(base)
          const kinds: ReadonlyArray<FaultKind> = ["serverError", "expiredToken", "malformedJson"]
          for (const kind of kinds) sim.control.injectFault({ path: "*", kind, method: "GET" })
          const failed = yield* call(c.dataPath)
          expect(failed.status).toBe(500)
          expect(() => failed.json()).not.toThrow()
          const expired = yield* call(c.dataPath)
          expect(expired.status).toBe(401)
          if (c.provider === "Fitbit") expect(expired.json().error.status).toBe("UNAUTHENTICATED")
          if (c.provider === "Garmin") expect(expired.json().errorMessage).toBeDefined()
          if (c.provider === "WHOOP" || c.provider === "Dexcom") expect(expired.json().error).toBe("invalid_token")
          const malformed = yield* call(c.dataPath)
          expect(malformed.status).toBe(200)
          expect(malformed.text.length).toBeGreaterThan(0)
          expect(() => JSON.parse(malformed.text)).toThrow()
          const healthy = yield* call(c.dataPath)
          expect(healthy.status).toBe(200)
          expect(healthy.text.startsWith(malformed.text)).toBe(true)
        }).pipe(Effect.provide(HttpLive)))

      it.scopedLive("slow delays the response and then answers normally", () =>
        Effect.gen(function*() {
          const { base, sim } = yield* served(c.provider, new ManualClock())
          const call = yield* c.connect(base)
          sim.control.injectFault({ path: dataPath, kind: "slow", delayMs: 150 })
          const started = Date.now()
          const slow = yield* call(c.dataPath)
          expect(Date.now() - started).toBeGreaterThanOrEqual(140)
          expect(slow.status).toBe(200)
          expect(() => slow.json()).not.toThrow()
        }).pipe(Effect.provide(HttpLive)))
    })
  }

  it.scopedLive("faults match by method and glob; the control routes list and clear them", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      yield* send("POST", `${base}/_sim/faults`, {
        json: [
          { path: "/v4/users/me/*", kind: "serverError", method: "POST" },
          { path: "/v4/users/*/identity", kind: "serverError", count: 3 }
        ]
      })
      expect((yield* get(`${base}/v4/users/me/settings`, bearer(tokens.access))).status).toBe(200)
      expect((yield* get(`${base}/v4/users/me/identity`, bearer(tokens.access))).status).toBe(500)
      const listed = (yield* get(`${base}/_sim/faults`)).json().faults
      expect(listed).toEqual([
        expect.objectContaining({ path: "/v4/users/me/*", remaining: 1 }),
        expect.objectContaining({ path: "/v4/users/*/identity", remaining: 2 })
      ])
      expect((yield* send("DELETE", `${base}/_sim/faults`)).status).toBe(204)
      expect((yield* get(`${base}/v4/users/me/identity`, bearer(tokens.access))).status).toBe(200)
      const bad = yield* send("POST", `${base}/_sim/faults`, { json: { path: "*", kind: "explode" } })
      expect(bad.status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the call log over HTTP filters by path and by presented secret, and never shows secrets", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      yield* get(`${base}/developer/v2/cycle?limit=1`, bearer(tokens.access))
      const all = (yield* get(`${base}/_sim/calls`)).json().calls
      expect(all.map((c: any) => c.path)).toEqual([
        "/oauth/oauth2/auth",
        "/oauth/oauth2/token",
        "/developer/v2/cycle"
      ])
      const text = JSON.stringify(all)
      for (const secret of [tokens.access, tokens.refresh!, "pb-client-secret"]) expect(text).not.toContain(secret)
      const cycle = all[2]
      expect(cycle).toMatchObject({ method: "GET", status: 200, params: { limit: "1" }, clientId: "pb-client" })
      expect(typeof cycle.time).toBe("string")
      const presented = (yield* get(`${base}/_sim/calls?presented=${encodeURIComponent(tokens.access)}`)).json().calls
      expect(presented).toHaveLength(1)
      expect(presented[0].params.auth).toBe(`bearer:${tokenFingerprint(tokens.access)}`)
      expect((yield* send("DELETE", `${base}/_sim/calls`)).status).toBe(204)
      expect((yield* get(`${base}/_sim/calls`)).json().calls).toEqual([])
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("expire-tokens, revoke and reset over HTTP act on the grants", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const profile = (access: string) => get(`${base}/v4/users/me/profile`, bearer(access))
      const unauthenticated = (reply: { status: number; json: () => any }) =>
        expect([reply.status, reply.json().error.status]).toEqual([401, "UNAUTHENTICATED"])
      const a = yield* fitbitConnect(base, "alice")
      expect((yield* profile(a.access)).status).toBe(200)
      expect((yield* send("POST", `${base}/_sim/expire-tokens`)).status).toBe(204)
      unauthenticated(yield* profile(a.access))
      const b = yield* fitbitConnect(base, "bob")
      const users = (yield* get(`${base}/_sim/users`)).json().users
      expect(users.map((u: any) => u.name).sort()).toEqual(["alice", "bob"])
      const bob = users.find((u: any) => u.name === "bob")
      expect((yield* send("POST", `${base}/_sim/revoke`, { json: { userId: bob.userId } })).status).toBe(204)
      unauthenticated(yield* profile(b.access))
      const c = yield* fitbitConnect(base, "carol")
      yield* send("POST", `${base}/_sim/reset`, { json: { keepGrants: true } })
      expect((yield* profile(c.access)).status).toBe(200)
      expect((yield* get(`${base}/_sim/calls`)).json().calls).toHaveLength(1)
      yield* send("POST", `${base}/_sim/reset`)
      unauthenticated(yield* profile(c.access))
      expect((yield* get(`${base}/_sim/users`)).json().users).toEqual([])
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("with a file store, tokens issued before a restart stay valid and the file holds no usable token", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const clock = new ManualClock()
      const fitbitFile = path.join(dir, "state", "fitbit.json")
      const garminFile = path.join(dir, "state", "garmin.json")
      const first = yield* served("Fitbit", clock, { store: fileStore(fitbitFile) })
      const firstGarmin = yield* served("Garmin", clock, { store: fileStore(garminFile) })
      const tokens = yield* fitbitConnect(first.base)
      const uat = yield* garminConnect(firstGarmin.base)
      yield* first.close
      yield* firstGarmin.close
      const stored = fs.readFileSync(fitbitFile, "utf8")
      expect(stored).not.toContain(tokens.access)
      expect(stored).not.toContain(tokens.refresh!)
      expect(fs.readdirSync(path.dirname(fitbitFile)).sort()).toEqual(["fitbit.json", "garmin.json"])
      const second = yield* served("Fitbit", clock, { store: fileStore(fitbitFile) })
      expect((yield* get(`${second.base}/v4/users/me/identity`, bearer(tokens.access))).status).toBe(200)
      const refreshed = yield* send("POST", `${second.base}/token`, {
        form: {
          grant_type: "refresh_token",
          refresh_token: tokens.refresh!,
          client_id: "pb-client",
          client_secret: "pb-client-secret"
        }
      })
      expect(refreshed.status).toBe(200)
      const secondGarmin = yield* served("Garmin", clock, { store: fileStore(garminFile) })
      expect((yield* sendSigned("GET", `${secondGarmin.base}/wellness-api/rest/user/id`, uat)).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it("the memory store hands out copies, and an unreadable file store starts empty", () => {
    const store = memoryStore()
    expect(store.get()).toBeUndefined()
    const state = { a: [1] }
    store.set(state)
    state.a.push(2)
    expect(store.get()).toEqual({ a: [1] })
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-sim-"))
    try {
      const file = path.join(dir, "broken.json")
      fs.writeFileSync(file, "{not json")
      expect(fileStore(file).get()).toBeUndefined()
      const sim = makeSimulator("Dexcom", options(new ManualClock(), { store: fileStore(file) }))
      expect(sim.control.users()).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.scopedLive("serveSimulator rebinds the base URL to where it listens and close stops it", () =>
    Effect.gen(function*() {
      const sim = makeSimulator("Dexcom", options(new ManualClock()))
      const server = yield* serveSimulator(sim)
      expect(sim.baseUrl).toBe(server.baseUrl)
      expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect((yield* get(`${server.baseUrl}/_sim/faults`)).status).toBe(200)
      yield* server.close
      const after = yield* Effect.either(get(`${server.baseUrl}/_sim/faults`))
      expect(after._tag).toBe("Left")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("unknown paths answer 404 in the provider's error shape", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const reply = yield* get(`${base}/nowhere`)
      expect(reply.status).toBe(404)
      expect(reply.json()).toEqual({ errorMessage: expect.any(String) })
    }).pipe(Effect.provide(HttpLive)))
})
