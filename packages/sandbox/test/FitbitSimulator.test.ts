/**
 * The Fitbit simulator over real HTTP: consent page, OAuth 2.0 legs with Basic auth and PKCE,
 * refresh rotation and replay, revoke, daily summaries and units, rate limits, subscriptions.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { fitbitSignature, tokenFingerprint } from "../src/index.js"
import {
  basic,
  bearer,
  CLIENT,
  fitbitAuthorizeUrl,
  fitbitConnect,
  formAction,
  get,
  HttpLive,
  ManualClock,
  pkcePair,
  postForm,
  receiver,
  REDIRECT,
  send,
  served,
  STATE
} from "./simulatorHarness.js"

const token = (base: string, form: Record<string, string>, auth = basic(CLIENT.clientId, CLIENT.clientSecret)) =>
  postForm(`${base}/oauth2/token`, form, auth)

const approveFor = (url: string, form: Record<string, string | ReadonlyArray<string>> = {}) =>
  Effect.map(postForm(url, { decision: "approve", ...form }), (reply) => reply.location())

describe("Fitbit simulator", () => {
  it.scopedLive("the consent page is a form that posts back to the same URL with scopes and a user field", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const url = fitbitAuthorizeUrl(base)
      const reply = yield* get(url)
      expect(reply.status).toBe(200)
      expect(reply.headers["content-type"]).toContain("text/html")
      expect(formAction(reply.text)).toBe(url)
      expect(reply.text).toContain("Fitbit")
      for (const scope of ["activity", "heartrate", "profile"]) {
        expect(reply.text).toContain(`name="scope" value="${scope}" checked`)
      }
      expect(reply.text).toContain(`name="user" value="sandbox-user"`)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("approving redirects to redirect_uri with a code and the state; denying with access_denied", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const approved = yield* approveFor(fitbitAuthorizeUrl(base))
      expect(`${approved.origin}${approved.pathname}`).toBe(REDIRECT)
      expect(approved.searchParams.get("code")).toMatch(/.{20,}/)
      expect(approved.searchParams.get("state")).toBe(STATE)
      const denied = (yield* postForm(fitbitAuthorizeUrl(base), { decision: "deny" })).location()
      expect(denied.searchParams.get("error")).toBe("access_denied")
      expect(denied.searchParams.get("state")).toBe(STATE)
      expect(denied.searchParams.has("code")).toBe(false)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("authorize requests with an unknown client, no redirect_uri or a bad PKCE challenge get an error page", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const unknown = yield* get(fitbitAuthorizeUrl(base, { client_id: "nobody" }))
      expect(unknown.status).toBe(400)
      expect(unknown.text).toContain("unauthorized_client - Invalid client_id")
      const noRedirect = yield* get(fitbitAuthorizeUrl(base).replace(/&redirect_uri=[^&]*/, ""))
      expect(noRedirect.text).toContain("Missing redirect_uri")
      const short = yield* get(fitbitAuthorizeUrl(base, { code_challenge: "abc", code_challenge_method: "S256" }))
      expect(short.text).toContain("length must be between 43 and 128")
      const plain = yield* get(
        fitbitAuthorizeUrl(base, { code_challenge: pkcePair().challenge, code_challenge_method: "plain" })
      )
      expect(plain.text).toContain("Unsupported code_challenge_method")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the token exchange needs the right Basic credentials and answers Fitbit's token body", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const code = (yield* approveFor(fitbitAuthorizeUrl(base))).searchParams.get("code")!
      const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT }
      const wrong = yield* token(base, form, basic(CLIENT.clientId, "not-the-secret"))
      expect(wrong.status).toBe(401)
      expect(wrong.json()).toEqual({
        errors: [{ errorType: "invalid_client", message: expect.any(String) }],
        success: false
      })
      const missing = yield* postForm(`${base}/oauth2/token`, form)
      expect(missing.status).toBe(401)
      const ok = yield* token(base, form)
      expect(ok.status).toBe(200)
      const body = ok.json()
      expect(body).toEqual({
        access_token: expect.any(String),
        expires_in: 28800,
        refresh_token: expect.any(String),
        scope: "activity heartrate profile",
        token_type: "Bearer",
        user_id: expect.stringMatching(/^[0-9A-Z]{6}$/)
      })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a code works once and for ten minutes", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("Fitbit", clock)
      const code = (yield* approveFor(fitbitAuthorizeUrl(base))).searchParams.get("code")!
      const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT }
      expect((yield* token(base, form)).status).toBe(200)
      const again = yield* token(base, form)
      expect(again.status).toBe(400)
      expect(again.json().errors[0].errorType).toBe("invalid_grant")
      const late = (yield* approveFor(fitbitAuthorizeUrl(base))).searchParams.get("code")!
      clock.advance(10 * 60_000 + 1)
      const expired = yield* token(base, { ...form, code: late })
      expect(expired.json().errors[0].errorType).toBe("invalid_grant")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a code issued with a PKCE challenge needs the matching verifier", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const { challenge, verifier } = pkcePair()
      const authorize = fitbitAuthorizeUrl(base, { code_challenge: challenge, code_challenge_method: "S256" })
      const exchange = (code_verifier?: string) =>
        Effect.flatMap(approveFor(authorize), (location) =>
          token(base, {
            grant_type: "authorization_code",
            code: location.searchParams.get("code")!,
            redirect_uri: REDIRECT,
            ...(code_verifier === undefined ? {} : { code_verifier })
          }))
      const without = yield* exchange()
      expect(without.status).toBe(400)
      expect(without.json().errors[0].errorType).toBe("invalid_grant")
      const mismatched = yield* exchange(pkcePair().verifier)
      expect(mismatched.status).toBe(400)
      expect(mismatched.json().errors[0].errorType).toBe("invalid_grant")
      expect((yield* exchange(verifier)).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("unticked scopes are not granted and their endpoints answer 403 insufficient_scope", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const location = yield* approveFor(fitbitAuthorizeUrl(base), { consent_form: "1", scope: ["activity"] })
      const body = (yield* token(base, {
        grant_type: "authorization_code",
        code: location.searchParams.get("code")!,
        redirect_uri: REDIRECT
      })).json()
      expect(body.scope).toBe("activity")
      const profile = yield* get(`${base}/1/user/-/profile.json`, bearer(body.access_token))
      expect(profile.status).toBe(403)
      expect(profile.json().errors[0].errorType).toBe("insufficient_scope")
      const daily = yield* get(`${base}/1/user/-/activities/date/2025-06-01.json`, bearer(body.access_token))
      expect(daily.status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("refresh rotates: the spent refresh token is refused once the new tokens are used", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Fitbit", new ManualClock())
      const first = yield* fitbitConnect(base)
      const refresh = (refresh_token: string) => token(base, { grant_type: "refresh_token", refresh_token })
      const second = yield* refresh(first.refresh!)
      expect(second.status).toBe(200)
      const rotated = second.json()
      expect(rotated.refresh_token).not.toBe(first.refresh)
      expect(rotated.access_token).not.toBe(first.access)
      // Fitbit repeats the answer to an identical refresh until the new tokens are used
      expect((yield* refresh(first.refresh!)).json()).toEqual(rotated)
      expect((yield* get(`${base}/1/user/-/profile.json`, bearer(rotated.access_token))).status).toBe(200)
      const spent = yield* refresh(first.refresh!)
      expect(spent.status).toBe(400)
      expect(spent.json()).toEqual({
        errors: [{ errorType: "invalid_grant", message: expect.any(String) }],
        success: false
      })
      expect((yield* refresh(rotated.refresh_token)).status).toBe(200)
      expect(sim.control.calls({ path: "/oauth2/token", presented: first.refresh! })).toHaveLength(3)
      expect(sim.control.calls({ path: "/oauth2/token", presented: rotated.refresh_token })).toHaveLength(1)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the identical-refresh replay window closes after two minutes", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("Fitbit", clock)
      const first = yield* fitbitConnect(base)
      const refresh = () => token(base, { grant_type: "refresh_token", refresh_token: first.refresh! })
      expect((yield* refresh()).status).toBe(200)
      clock.advance(121_000)
      expect((yield* refresh()).json().errors[0].errorType).toBe("invalid_grant")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("an expired access token answers 401 expired_token and an unknown one invalid_token", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base, sim } = yield* served("Fitbit", clock)
      const tokens = yield* fitbitConnect(base)
      const profile = (access: string) => get(`${base}/1/user/-/profile.json`, bearer(access))
      expect((yield* profile(tokens.access)).status).toBe(200)
      clock.advance(28_800_000)
      const expired = yield* profile(tokens.access)
      expect(expired.status).toBe(401)
      expect(expired.json().errors[0].errorType).toBe("expired_token")
      const fresh = yield* fitbitConnect(base)
      sim.control.expireAccessTokens()
      expect((yield* profile(fresh.access)).json().errors[0].errorType).toBe("expired_token")
      const unknown = yield* profile("not-a-token")
      expect(unknown.status).toBe(401)
      expect(unknown.json().errors[0].errorType).toBe("invalid_token")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("revoking one token revokes all the user's tokens for the app, and a user has one refresh token", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Fitbit", new ManualClock())
      const a = yield* fitbitConnect(base, "alice")
      const b = yield* fitbitConnect(base, "alice")
      const other = yield* fitbitConnect(base, "bob")
      // a user holds one refresh token per app: the second authorization replaced the first
      expect((yield* token(base, { grant_type: "refresh_token", refresh_token: a.refresh! })).status).toBe(400)
      const revoked = yield* postForm(
        `${base}/oauth2/revoke`,
        { token: a.access },
        basic(CLIENT.clientId, CLIENT.clientSecret)
      )
      expect(revoked.status).toBe(200)
      for (const access of [a.access, b.access]) {
        const reply = yield* get(`${base}/1/user/-/activities/date/2025-06-01.json`, bearer(access))
        expect(reply.status).toBe(401)
        expect(reply.json().errors[0].errorType).toBe("invalid_token")
      }
      expect((yield* token(base, { grant_type: "refresh_token", refresh_token: b.refresh! })).status).toBe(400)
      expect((yield* get(`${base}/1/user/-/profile.json`, bearer(other.access))).status).toBe(200)
      expect(sim.control.calls({ path: "/oauth2/revoke" })).toHaveLength(1)
      expect(sim.control.calls({ path: "/oauth2/revoke", presented: a.access })).toHaveLength(1)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the daily summary is deterministic per user and date and differs between users", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const alice = yield* fitbitConnect(base, "alice")
      const bob = yield* fitbitConnect(base, "bob")
      const day = (access: string, date: string) =>
        get(`${base}/1/user/-/activities/date/${date}.json`, { ...bearer(access), "accept-language": "en_GB" })
      const one = yield* day(alice.access, "2025-06-10")
      const two = yield* day(alice.access, "2025-06-10")
      expect(one.text).toBe(two.text)
      const summary = one.json().summary
      expect(summary.steps).toBeGreaterThanOrEqual(2000)
      expect(summary.steps).toBeLessThanOrEqual(15000)
      expect(summary.caloriesOut).toBeGreaterThan(summary.caloriesBMR)
      expect(summary.distances.map((d: any) => d.activity)).toEqual([
        "total",
        "tracker",
        "loggedActivities",
        "veryActive",
        "moderatelyActive",
        "lightlyActive",
        "sedentaryActive"
      ])
      expect(summary.veryActiveMinutes + summary.fairlyActiveMinutes + summary.lightlyActiveMinutes).toBeLessThan(1440)
      expect(summary.activeScore).toBe(-1)
      expect(summary.heartRateZones).toHaveLength(4)
      expect((yield* day(bob.access, "2025-06-10")).text).not.toBe(one.text)
      expect((yield* day(alice.access, "2025-06-09")).text).not.toBe(one.text)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("distances are in miles for Accept-Language en_US and kilometres otherwise", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      const total = (language?: string) =>
        Effect.map(
          get(`${base}/1/user/-/activities/date/2025-06-10.json`, {
            ...bearer(tokens.access),
            ...(language === undefined ? {} : { "accept-language": language })
          }),
          (reply) => reply.json().summary
        )
      const us = yield* total("en_US")
      const metric = yield* total()
      const km = metric.distances[0].distance
      expect(us.distances[0].distance).toBeCloseTo(km / 1.609344, 1)
      expect(us.elevation).toBeCloseTo(metric.elevation / 0.3048, 0)
      expect((yield* total("en_GB")).distances[0].distance).toBe(km)
      expect(us.steps).toBe(metric.steps)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("today is partial, future days are empty, and the profile carries time zone and units", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      const profile = (yield* get(`${base}/1/user/-/profile.json`, bearer(tokens.access))).json().user
      expect(profile.encodedId).toBe(tokens.body.user_id)
      expect(profile.displayName).toBe("sandbox-user")
      expect(typeof profile.timezone).toBe("string")
      expect(Number.isInteger(profile.offsetFromUTCMillis)).toBe(true)
      expect(["en_US", "METRIC"]).toContain(profile.distanceUnit)
      const summary = (date: string) =>
        Effect.map(
          get(`${base}/1/user/-/activities/date/${date}.json`, bearer(tokens.access)),
          (reply) => reply.json().summary
        )
      const future = yield* summary("2025-07-01")
      expect(future.steps).toBe(0)
      expect(future.restingHeartRate).toBeUndefined()
      const today = yield* summary("today")
      expect(today.steps).toBeGreaterThan(0)
      expect(today.sedentaryMinutes + today.lightlyActiveMinutes).toBeLessThan(1440)
      const bad = yield* get(`${base}/1/user/-/activities/date/2025-02-30.json`, bearer(tokens.access))
      expect(bad.status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("150 calls per user per hour, then 429 with Retry-After until the top of the hour", () =>
    Effect.gen(function*() {
      const clock = new ManualClock("2025-06-15T12:20:00.000Z")
      const { base } = yield* served("Fitbit", clock)
      const tokens = yield* fitbitConnect(base)
      const call = () => get(`${base}/1/user/-/activities/date/2025-06-10.json`, bearer(tokens.access))
      const first = yield* call()
      expect(first.headers["fitbit-rate-limit-limit"]).toBe("150")
      expect(first.headers["fitbit-rate-limit-remaining"]).toBe("149")
      expect(first.headers["fitbit-rate-limit-reset"]).toBe("2400")
      for (let i = 1; i < 150; i++) expect((yield* call()).status).toBe(200)
      const limited = yield* call()
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toBe("2400")
      expect(limited.json().errors[0]).toEqual({ errorType: "system", fieldName: "n/a", message: "Too Many Requests" })
      const other = yield* fitbitConnect(base, "someone-else")
      expect((yield* get(`${base}/1/user/-/profile.json`, bearer(other.access))).status).toBe(200)
      clock.set("2025-06-15T13:00:00.000Z")
      expect((yield* call()).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("subscriptions are created once per collection, listed and deleted", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      const auth = bearer(tokens.access)
      const created = yield* send("POST", `${base}/1/user/-/activities/apiSubscriptions/sub-1.json`, { headers: auth })
      expect(created.status).toBe(201)
      expect(created.json()).toEqual({
        collectionType: "activities",
        ownerId: tokens.body.user_id,
        ownerType: "user",
        subscriberId: "1",
        subscriptionId: "sub-1"
      })
      const same = yield* send("POST", `${base}/1/user/-/activities/apiSubscriptions/sub-1.json`, { headers: auth })
      expect(same.status).toBe(200)
      const conflict = yield* send("POST", `${base}/1/user/-/activities/apiSubscriptions/sub-2.json`, { headers: auth })
      expect(conflict.status).toBe(409)
      const list = yield* get(`${base}/1/user/-/apiSubscriptions.json`, auth)
      expect(list.json().apiSubscriptions).toHaveLength(1)
      expect((yield* get(`${base}/1/user/-/activities/apiSubscriptions.json`, auth)).json().apiSubscriptions)
        .toHaveLength(1)
      expect((yield* get(`${base}/1/user/-/sleep/apiSubscriptions.json`, auth)).json().apiSubscriptions).toHaveLength(0)
      expect(sim.control.subscriptions()).toHaveLength(1)
      const deleted = yield* send("DELETE", `${base}/1/user/-/activities/apiSubscriptions/sub-1.json`, {
        headers: auth
      })
      expect(deleted.status).toBe(204)
      expect((yield* get(`${base}/1/user/-/apiSubscriptions.json`, auth)).json().apiSubscriptions).toHaveLength(0)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("notifications are a JSON array signed with HMAC-SHA1 keyed by the client secret and &", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Fitbit", new ManualClock())
      const hook = yield* receiver()
      const tokens = yield* fitbitConnect(base)
      yield* send("POST", `${base}/1/user/-/activities/apiSubscriptions/sub-1.json`, { headers: bearer(tokens.access) })
      const delivery = yield* sim.control.notifySubscribers(hook.url, {
        ownerId: tokens.body.user_id,
        collectionType: "activities",
        date: "2025-06-14"
      })
      expect(delivery?.status).toBe(204)
      const received = hook.received[0]!
      expect(JSON.parse(received.body)).toEqual([{
        collectionType: "activities",
        date: "2025-06-14",
        ownerId: tokens.body.user_id,
        ownerType: "user",
        subscriptionId: "sub-1"
      }])
      expect(received.headers["x-fitbit-signature"]).toBe(fitbitSignature(received.body, CLIENT.clientSecret))
      expect(fitbitSignature(received.body, CLIENT.clientSecret)).toBe(
        crypto.createHmac("sha1", `${CLIENT.clientSecret}&`).update(received.body).digest("base64")
      )
      const none = yield* sim.control.notifySubscribers(hook.url, {
        ownerId: tokens.body.user_id,
        collectionType: "sleep",
        date: "2025-06-14"
      })
      expect(none).toBeUndefined()
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("subscriber verification sends the right code then a wrong one", () =>
    Effect.gen(function*() {
      const { sim } = yield* served("Fitbit", new ManualClock())
      const good = yield* receiver((r) => r.url.endsWith("verify=the-code") ? 204 : 404)
      const verification = yield* sim.control.verifySubscriber(good.url, "the-code")
      expect(verification).toEqual({ correctCodeStatus: 204, wrongCodeStatus: 404, verified: true })
      expect(good.received.map((r) => r.method)).toEqual(["GET", "GET"])
      const lax = yield* receiver(() => 204)
      expect((yield* sim.control.verifySubscriber(lax.url, "the-code")).verified).toBe(false)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the call log names tokens only by fingerprint", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      yield* get(`${base}/1/user/-/profile.json`, bearer(tokens.access))
      const log = JSON.stringify(sim.control.calls())
      expect(log).not.toContain(tokens.access)
      expect(log).not.toContain(tokens.refresh)
      expect(log).not.toContain(CLIENT.clientSecret)
      const [profileCall] = sim.control.calls({ path: "/1/user/-/profile.json" })
      expect(profileCall?.params["auth"]).toBe(`bearer:${tokenFingerprint(tokens.access)}`)
      expect(profileCall?.userId).toBe(tokens.body.user_id)
      expect(sim.control.calls({ path: "/oauth2/token" })[0]?.params["auth"]).toBe(`basic:${CLIENT.clientId}`)
    }).pipe(Effect.provide(HttpLive)))
})
