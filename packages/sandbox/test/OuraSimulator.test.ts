/**
 * The Oura simulator over real HTTP: consent and token rules (a code once, the same redirect_uri, refresh tokens
 * used once), scopes per collection, date validation, `next_token` paging, the per-user minute limit, the
 * webhook subscription API with its callback verification, and signed notifications.
 * Oura's pages: cloud.ouraring.com/docs/authentication, cloud.ouraring.com/docs/error-handling,
 * cloud.ouraring.com/v2/docs (collections, webhooks).
 */
import { HttpClient, HttpClientRequest, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { serveHttpApp, serveSimulator } from "../src/index.js"
import { makeOuraSimulator, ouraSignature } from "../src/oura/index.js"
import type { Received, Reply } from "./simulatorHarness.js"
import {
  bearer,
  CLIENT,
  get,
  HttpLive,
  ManualClock,
  options,
  postForm,
  REDIRECT,
  send,
  STATE
} from "./simulatorHarness.js"

const SCOPES = "personal daily workout spo2"

const servedOura = (clock: ManualClock, seed?: string) =>
  Effect.gen(function*() {
    const sim = makeOuraSimulator(options(clock, seed === undefined ? {} : { seed }))
    const server = yield* serveSimulator(sim)
    return { sim, base: server.baseUrl }
  })

const authorizeUrl = (base: string, extra: Readonly<Record<string, string>> = {}) =>
  `${base}/oauth/authorize?${new URLSearchParams({
    client_id: CLIENT.clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: SCOPES,
    state: STATE,
    ...extra
  })}`

const withClient = (form: Record<string, string>) => ({
  ...form,
  client_id: CLIENT.clientId,
  client_secret: CLIENT.clientSecret
})

const codeOf = (base: string, form: Readonly<Record<string, string | ReadonlyArray<string>>> = {}) =>
  Effect.map(postForm(authorizeUrl(base), { decision: "approve", ...form }), (reply) => {
    expect(reply.status).toBe(302)
    return reply.location()
  })

const connect = (base: string, form: Readonly<Record<string, string | ReadonlyArray<string>>> = {}) =>
  Effect.gen(function*() {
    const location = yield* codeOf(base, form)
    const reply = yield* postForm(
      `${base}/oauth/token`,
      withClient({ grant_type: "authorization_code", code: location.searchParams.get("code")!, redirect_uri: REDIRECT })
    )
    expect(reply.status).toBe(200)
    const body = reply.json()
    const userId = (yield* get(`${base}/v2/usercollection/personal_info`, bearer(body.access_token))).json().id
    return {
      access: body.access_token as string,
      refresh: body.refresh_token as string,
      body,
      userId: userId as string
    }
  })

/** Every page of a collection between two dates. */
const pages = (base: string, access: string, collection: string, start: string, end: string) =>
  Effect.gen(function*() {
    const out: Array<any> = []
    let next: string | null = null
    do {
      const query: URLSearchParams = new URLSearchParams({
        start_date: start,
        end_date: end,
        ...(next === null ? {} : { next_token: next })
      })
      const reply: Reply = yield* get(`${base}/v2/usercollection/${collection}?${query}`, bearer(access))
      expect(reply.status).toBe(200)
      out.push(reply.json())
      next = reply.json().next_token
    } while (next !== null && out.length < 100)
    return out
  })

/** A subscriber endpoint: answers Oura's challenge (when `answer`) and records every request. */
const subscriber = (answer = true) =>
  Effect.gen(function*() {
    const received: Array<Received> = []
    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.orElseSucceed(request.text, () => "")
      received.push({ method: request.method, url: request.url, headers: request.headers, body })
      if (request.method === "GET") {
        const challenge = new URL(request.url, "http://x").searchParams.get("challenge")
        return answer ? HttpServerResponse.unsafeJson({ challenge }) : HttpServerResponse.empty({ status: 200 })
      }
      return HttpServerResponse.empty({ status: 200 })
    })
    const server = yield* serveHttpApp(app)
    return { url: `${server.baseUrl}/hooks/oura`, received }
  })

const appHeaders = { "x-client-id": CLIENT.clientId, "x-client-secret": CLIENT.clientSecret }

/** A PUT with the app's headers (the harness sends GET, POST and DELETE). */
const put = (url: string) =>
  Effect.gen(function*() {
    const response = yield* HttpClient.execute(
      HttpClientRequest.put(url).pipe(HttpClientRequest.setHeaders(appHeaders))
    )
    const text = yield* response.text
    return { status: response.status, json: () => JSON.parse(text) }
  })

describe("Oura simulator", () => {
  it.scopedLive("a code works once and only with the redirect_uri it was issued for", () =>
    Effect.gen(function*() {
      const { base } = yield* servedOura(new ManualClock())
      const page = yield* get(authorizeUrl(base))
      expect(page.status).toBe(200)
      expect(page.text).toContain(`name="scope" value="spo2" checked`)
      const location = yield* codeOf(base)
      expect(location.searchParams.get("state")).toBe(STATE)
      expect(location.searchParams.get("scope")).toBe(SCOPES)
      const code = location.searchParams.get("code")!
      const wrongUri = yield* postForm(
        `${base}/oauth/token`,
        withClient({ grant_type: "authorization_code", code, redirect_uri: "https://elsewhere.example/cb" })
      )
      expect(wrongUri.status).toBe(400)
      expect(wrongUri.json().error).toBe("invalid_grant")
      // the failed exchange spent the code
      const again = yield* postForm(
        `${base}/oauth/token`,
        withClient({ grant_type: "authorization_code", code, redirect_uri: REDIRECT })
      )
      expect(again.status).toBe(400)
      const tokens = yield* connect(base)
      expect(tokens.body).toMatchObject({ token_type: "bearer", expires_in: 86_400, scope: SCOPES })
      const badSecret = yield* postForm(`${base}/oauth/token`, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh,
        client_id: CLIENT.clientId,
        client_secret: "wrong"
      })
      expect(badSecret.status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a refresh token works once: the new one works, the old one is refused", () =>
    Effect.gen(function*() {
      const { base } = yield* servedOura(new ManualClock())
      const first = yield* connect(base)
      const refresh = (token: string) =>
        postForm(`${base}/oauth/token`, withClient({ grant_type: "refresh_token", refresh_token: token }))
      const second = yield* refresh(first.refresh)
      expect(second.status).toBe(200)
      expect(second.json().refresh_token).not.toBe(first.refresh)
      const spent = yield* refresh(first.refresh)
      expect(spent.status).toBe(400)
      expect(spent.json()).toMatchObject({
        error: "invalid_grant",
        error_description: "Token already used or revoked."
      })
      expect((yield* refresh(second.json().refresh_token)).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("an expired or revoked token is 401; revocation ends the grant", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* servedOura(clock)
      const tokens = yield* connect(base)
      const revoked = yield* get(`${base}/oauth/revoke?access_token=${encodeURIComponent(tokens.access)}`)
      expect(revoked.status).toBe(200)
      const after = yield* get(`${base}/v2/usercollection/daily_activity`, bearer(tokens.access))
      expect(after.status).toBe(401)
      expect(after.json().title).toBe("Invalid Access token")
      const other = yield* connect(base)
      clock.advance(86_400_000)
      const expired = yield* get(`${base}/v2/usercollection/daily_activity`, bearer(other.access))
      expect(expired.json()).toMatchObject({ status: 401, title: "Expired Token" })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("each collection needs its scope: a scope unticked at consent is 403 Missing Scopes", () =>
    Effect.gen(function*() {
      const { base } = yield* servedOura(new ManualClock())
      const tokens = yield* connect(base, { consent_form: "1", scope: ["personal", "daily"] })
      expect(tokens.body.scope).toBe("personal daily")
      const workout = yield* get(`${base}/v2/usercollection/workout`, bearer(tokens.access))
      expect(workout.status).toBe(403)
      expect(workout.json()).toMatchObject({ status: 403, title: "Missing Scopes" })
      expect((yield* get(`${base}/v2/usercollection/daily_spo2`, bearer(tokens.access))).status).toBe(403)
      expect((yield* get(`${base}/v2/usercollection/sleep`, bearer(tokens.access))).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("dates are validated: a malformed date is 422, a start after the end is 400", () =>
    Effect.gen(function*() {
      const { base } = yield* servedOura(new ManualClock())
      const tokens = yield* connect(base)
      const malformed = yield* get(`${base}/v2/usercollection/sleep?start_date=2025-13-01`, bearer(tokens.access))
      expect(malformed.status).toBe(422)
      expect(malformed.json().detail[0].loc).toEqual(["query", "start_date"])
      const reversed = yield* get(
        `${base}/v2/usercollection/sleep?start_date=2025-06-10&end_date=2025-06-01`,
        bearer(tokens.access)
      )
      expect(reversed.status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("pages are small and next_token leads through every document once; a forged token is 400", () =>
    Effect.gen(function*() {
      const { base } = yield* servedOura(new ManualClock())
      const tokens = yield* connect(base)
      const all = yield* pages(base, tokens.access, "daily_sleep", "2025-06-01", "2025-06-14")
      expect(all.length).toBe(3)
      const docs = all.flatMap((p) => p.data)
      // end_date is inclusive for daily_sleep (14 days), exclusive for daily_activity (13)
      expect(docs.map((d: any) => d.day)).toEqual(
        Array.from({ length: 14 }, (_, i) => `2025-06-${String(i + 1).padStart(2, "0")}`)
      )
      const activity = (yield* pages(base, tokens.access, "daily_activity", "2025-06-01", "2025-06-14")).flatMap((p) =>
        p.data
      )
      expect(activity.map((d: any) => d.day).at(-1)).toBe("2025-06-13")
      const forged = yield* get(
        `${base}/v2/usercollection/daily_sleep?start_date=2025-06-01&end_date=2025-06-14&next_token=abc`,
        bearer(tokens.access)
      )
      expect(forged.status).toBe(400)
      const other = yield* get(
        `${base}/v2/usercollection/daily_sleep?start_date=2025-06-02&end_date=2025-06-14&next_token=${
          all[0].next_token
        }`,
        bearer(tokens.access)
      )
      expect(other.status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("every account has every collection with local times and offsets, the same for the same seed", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* servedOura(clock, "seed-1")
      const twin = yield* servedOura(clock, "seed-1")
      const tokens = yield* connect(base, { user: "alice" })
      for (const collection of ["daily_activity", "sleep", "daily_sleep", "daily_readiness", "daily_spo2", "workout"]) {
        const docs = (yield* pages(base, tokens.access, collection, "2025-06-01", "2025-06-15")).flatMap((p) => p.data)
        expect(docs.length, collection).toBeGreaterThan(0)
      }
      const sleep = (yield* pages(base, tokens.access, "sleep", "2025-06-10", "2025-06-11"))[0].data[0]
      expect(sleep.bedtime_start).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/)
      expect(sleep.day).toBe("2025-06-10")
      const other = yield* connect(twin.base, { user: "alice" })
      expect(other.userId).toBe(tokens.userId)
      const twinSleep = (yield* pages(twin.base, other.access, "sleep", "2025-06-10", "2025-06-11"))[0].data[0]
      expect(twinSleep).toEqual(sleep)
      const byId = yield* get(`${base}/v2/usercollection/sleep/${sleep.id}`, bearer(tokens.access))
      expect(byId.json()).toEqual(sleep)
      expect((yield* get(`${base}/v2/usercollection/workout/${sleep.id}`, bearer(tokens.access))).status).toBe(404)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the 301st request of a minute is 429 with Retry-After", () =>
    Effect.gen(function*() {
      const { base } = yield* servedOura(new ManualClock())
      const tokens = yield* connect(base)
      const url = `${base}/v2/usercollection/daily_spo2?start_date=2025-06-10&end_date=2025-06-10`
      // connect read personal_info once
      for (let i = 0; i < 299; i++) expect((yield* get(url, bearer(tokens.access))).status).toBe(200)
      const limited = yield* get(url, bearer(tokens.access))
      expect(limited.status).toBe(429)
      expect(limited.json().title).toBe("Request Rate Limit Exceeded")
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("subscriptions are the app's: created after the callback answers the challenge, renewed, listed", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base, sim } = yield* servedOura(clock)
      const hook = yield* subscriber()
      const body = { callback_url: hook.url, verification_token: "token-1", event_type: "create", data_type: "sleep" }
      const noAuth = yield* send("POST", `${base}/v2/webhook/subscription`, { json: body })
      expect(noAuth.status).toBe(401)
      const created = yield* send("POST", `${base}/v2/webhook/subscription`, { json: body, headers: appHeaders })
      expect(created.status).toBe(201)
      const verification = new URL(hook.received[0]!.url, "http://x")
      expect(hook.received[0]!.method).toBe("GET")
      expect(verification.searchParams.get("verification_token")).toBe("token-1")
      expect(verification.searchParams.get("challenge")).toMatch(/.{10,}/)
      const duplicate = yield* send("POST", `${base}/v2/webhook/subscription`, { json: body, headers: appHeaders })
      expect(duplicate.status).toBe(409)
      const listed = (yield* get(`${base}/v2/webhook/subscription`, appHeaders)).json()
      expect(listed).toEqual([{ ...created.json() }])
      clock.advance(86_400_000)
      const renewed = yield* put(`${base}/v2/webhook/subscription/renew/${created.json().id}`)
      expect(renewed.status).toBe(200)
      expect(Date.parse(renewed.json().expiration_time)).toBeGreaterThan(Date.parse(created.json().expiration_time))
      const silent = yield* subscriber(false)
      const refused = yield* send("POST", `${base}/v2/webhook/subscription`, {
        json: { ...body, callback_url: silent.url },
        headers: appHeaders
      })
      expect(refused.status).toBe(400)
      expect(sim.control.subscriptions()).toHaveLength(1)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a notification is POSTed to each live subscription, signed over the timestamp and the body", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base, sim } = yield* servedOura(clock)
      const tokens = yield* connect(base)
      const hook = yield* subscriber()
      const body = {
        callback_url: hook.url,
        verification_token: "t",
        event_type: "update",
        data_type: "daily_readiness"
      }
      expect((yield* send("POST", `${base}/v2/webhook/subscription`, { json: body, headers: appHeaders })).status)
        .toBe(201)
      const deliveries = yield* sim.control.notify({
        userId: tokens.userId,
        dataType: "daily_readiness",
        eventType: "update",
        day: "2025-06-14"
      })
      expect(deliveries).toHaveLength(1)
      const post = hook.received.find((r) => r.method === "POST")!
      const payload = JSON.parse(post.body)
      expect(payload).toMatchObject({ event_type: "update", data_type: "daily_readiness", user_id: tokens.userId })
      const doc = (yield* get(`${base}/v2/usercollection/daily_readiness/${payload.object_id}`, bearer(tokens.access)))
        .json()
      expect(doc.day).toBe("2025-06-14")
      const timestamp = post.headers["x-oura-timestamp"]!
      expect(Number(timestamp)).toBe(Math.floor(clock.ms / 1000))
      const expected = crypto.createHmac("sha256", CLIENT.clientSecret).update(timestamp + post.body).digest("hex")
      expect(post.headers["x-oura-signature"]).toBe(expected.toUpperCase())
      expect(ouraSignature(CLIENT.clientSecret, timestamp, post.body)).toBe(post.headers["x-oura-signature"])
      // an expired subscription is not notified
      sim.control.expireSubscriptions(0)
      expect(
        yield* sim.control.notify({ userId: tokens.userId, dataType: "daily_readiness", eventType: "update" })
      ).toHaveLength(0)
    }).pipe(Effect.provide(HttpLive)))
})
