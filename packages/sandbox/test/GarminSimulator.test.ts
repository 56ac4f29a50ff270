/**
 * The Garmin simulator over real HTTP, signed with the `oauth-1.0a` package: the three OAuth 1.0a
 * legs and signature checks, user endpoints, deregistration, dailies pull, backfill and pushes.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { garminDaily } from "../src/index.js"
import {
  CLIENT,
  formAction,
  GARMIN_CALLBACK,
  garminConfirmUrl,
  garminConnect,
  garminRequestToken,
  get,
  HttpLive,
  ManualClock,
  OTHER_CLIENT,
  postForm,
  receiver,
  send,
  sendSigned,
  served,
  signed
} from "./simulatorHarness.js"

// 2025-06-10T00:00:00Z; the clock stands at 2025-06-15T12:00Z
const JUNE_10 = 1_749_513_600

describe("Garmin simulator", () => {
  it.scopedLive("a request token needs a valid consumer signature and comes back form-encoded", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const url = `${base}/oauth-service/oauth/request_token`
      const ok = yield* sendSigned("POST", url)
      expect(ok.status).toBe(200)
      const params = new URLSearchParams(ok.text)
      expect(params.get("oauth_token")).toMatch(/^[0-9a-f-]{36}$/)
      expect(params.get("oauth_token_secret")).toMatch(/.{20,}/)
      expect(params.get("oauth_callback_confirmed")).toBe("true")
      const badSecret = yield* sendSigned("POST", url, undefined, undefined, {
        clientId: CLIENT.clientId,
        clientSecret: "wrong"
      })
      expect(badSecret.status).toBe(401)
      expect(badSecret.json()).toEqual({ errorMessage: "Invalid signature" })
      const unknown = yield* sendSigned("POST", url, undefined, undefined, { clientId: "nobody", clientSecret: "x" })
      expect(unknown.status).toBe(401)
      expect(unknown.json().errorMessage).toBeDefined()
      const unsigned = yield* send("POST", url)
      expect(unsigned.status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a signature over another URL or a replayed nonce is refused", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const url = `${base}/oauth-service/oauth/request_token`
      const header = signed("POST", `${base}/oauth-service/oauth/other`)
      expect((yield* send("POST", url, { headers: { authorization: header.Authorization } })).status).toBe(401)
      const good = signed("POST", url)
      expect((yield* send("POST", url, { headers: { authorization: good.Authorization } })).status).toBe(200)
      const replay = yield* send("POST", url, { headers: { authorization: good.Authorization } })
      expect(replay.status).toBe(401)
      expect(replay.json().errorMessage).toBe("Nonce already used")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the consent page posts back to itself; approve redirects with the verifier, deny with user_refused", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const requestToken = yield* garminRequestToken(base)
      const url = garminConfirmUrl(base, requestToken.key)
      const page = yield* get(url)
      expect(page.status).toBe(200)
      expect(formAction(page.text)).toBe(url)
      expect(page.text).toContain(`name="user" value="sandbox-user"`)
      expect(page.text).toContain(`value="HISTORICAL_DATA_EXPORT">`)
      const approved = (yield* postForm(url, { decision: "approve" })).location()
      expect(`${approved.origin}${approved.pathname}`).toBe(GARMIN_CALLBACK)
      expect(approved.searchParams.get("oauth_token")).toBe(requestToken.key)
      expect(approved.searchParams.get("oauth_verifier")).toMatch(/.{8,}/)
      const other = yield* garminRequestToken(base)
      const denied = (yield* postForm(garminConfirmUrl(base, other.key), { decision: "deny" })).location()
      expect(denied.searchParams.get("oauth_token")).toBe(other.key)
      expect(denied.searchParams.get("oauth_problem")).toBe("user_refused")
      expect(denied.searchParams.has("oauth_verifier")).toBe(false)
      const unknown = yield* get(garminConfirmUrl(base, "not-a-token"))
      expect(unknown.status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the access token needs the request token's secret and the right verifier, once", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const requestToken = yield* garminRequestToken(base)
      const location = (yield* postForm(garminConfirmUrl(base, requestToken.key), { decision: "approve" })).location()
      const verifier = location.searchParams.get("oauth_verifier")!
      const url = `${base}/oauth-service/oauth/access_token`
      const wrongVerifier = yield* sendSigned("POST", url, requestToken, { oauth_verifier: "0000000000000000" })
      expect(wrongVerifier.status).toBe(401)
      expect(wrongVerifier.json()).toEqual({ errorMessage: "Invalid oauth_verifier" })
      const wrongSecret = yield* sendSigned("POST", url, { key: requestToken.key, secret: "guess" }, {
        oauth_verifier: verifier
      })
      expect(wrongSecret.status).toBe(401)
      const ok = yield* sendSigned("POST", url, requestToken, { oauth_verifier: verifier })
      expect(ok.status).toBe(200)
      const params = new URLSearchParams(ok.text)
      expect(params.get("oauth_token")).toMatch(/^[0-9a-f-]{36}$/)
      expect(params.get("oauth_token_secret")).toMatch(/.{20,}/)
      const again = yield* sendSigned("POST", url, requestToken, { oauth_verifier: verifier })
      expect(again.status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("user id and permissions answer for the signed user; a bad token signature is refused", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base, "alice")
      const id = yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)
      expect(id.status).toBe(200)
      expect(id.json().userId).toMatch(/^[0-9a-f]{32}$/)
      const permissions = yield* sendSigned("GET", `${base}/wellness-api/rest/user/permissions`, uat)
      expect(permissions.json()).toEqual(expect.arrayContaining(["ACTIVITY_EXPORT", "HEALTH_EXPORT"]))
      const forged = yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, { key: uat.key, secret: "forged" })
      expect(forged.status).toBe(401)
      const otherConsumer = yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat, undefined, OTHER_CLIENT)
      expect(otherConsumer.status).toBe(401)
      const bob = yield* garminConnect(base, "bob")
      expect((yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, bob)).json().userId).not.toBe(
        id.json().userId
      )
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("deregistration answers 204 and the user access token stops working", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base)
      const gone = yield* sendSigned("DELETE", `${base}/wellness-api/rest/user/registration`, uat)
      expect(gone.status).toBe(204)
      const after = yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)
      expect(after.status).toBe(401)
      expect(after.json().errorMessage).toBeDefined()
      expect(sim.control.calls({ method: "DELETE", path: "/wellness-api/rest/user/registration" })).toHaveLength(1)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("dailies are pulled by upload window of at most 86400 seconds", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base)
      const pull = (start: number, end: number) =>
        sendSigned(
          "GET",
          `${base}/wellness-api/rest/dailies?uploadStartTimeInSeconds=${start}&uploadEndTimeInSeconds=${end}`,
          uat
        )
      const tooLong = yield* pull(JUNE_10, JUNE_10 + 86_401)
      expect(tooLong.status).toBe(400)
      expect(tooLong.json()).toEqual({ errorMessage: expect.any(String) })
      const missing = yield* sendSigned("GET", `${base}/wellness-api/rest/dailies`, uat)
      expect(missing.status).toBe(400)
      const day = yield* pull(JUNE_10, JUNE_10 + 86_400)
      expect(day.status).toBe(200)
      const dailies = day.json()
      expect(Array.isArray(dailies)).toBe(true)
      expect(dailies.length).toBeGreaterThan(0)
      for (const daily of dailies) {
        expect(daily.summaryId).toMatch(/^x[0-9a-f]{7}-[0-9a-f]+$/)
        expect(daily.calendarDate).toMatch(/^\d{4}-\d{2}-\d{2}$/)
        expect(daily.startTimeInSeconds + daily.startTimeOffsetInSeconds).toBe(
          Date.parse(`${daily.calendarDate}T00:00:00Z`) / 1000
        )
        expect(daily.steps).toBeGreaterThanOrEqual(0)
        expect(daily.steps).toBeLessThanOrEqual(15000)
        expect(daily.userAccessToken).toBe(uat.key)
      }
      expect((yield* pull(JUNE_10, JUNE_10 + 86_400)).text).toBe(day.text)
      const future = yield* pull(JUNE_10 + 10 * 86_400, JUNE_10 + 11 * 86_400)
      expect(future.json()).toEqual([])
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("daily values are deterministic per user and date and differ between users", () =>
    Effect.sync(() => {
      const alice = garminDaily("pulsebridge", "a".repeat(32), "2025-06-10", 1)
      expect(garminDaily("pulsebridge", "a".repeat(32), "2025-06-10", 1)).toEqual(alice)
      expect(garminDaily("pulsebridge", "b".repeat(32), "2025-06-10", 1)).not.toEqual(alice)
      expect(garminDaily("other-seed", "a".repeat(32), "2025-06-10", 1)).not.toEqual(alice)
      const half = garminDaily("pulsebridge", "a".repeat(32), "2025-06-10", 0.5)
      expect(half.summaryId).toBe(alice.summaryId)
      expect(half.steps).toBeLessThan(alice.steps)
      expect(alice.durationInSeconds).toBe(86_400)
      expect(alice.moderateIntensityDurationInSeconds + alice.vigorousIntensityDurationInSeconds).toBeLessThanOrEqual(
        alice.activeTimeInSeconds
      )
    }))

  it.scopedLive("backfill answers 202, refuses duplicates and ranges over 30 days, and pushes later", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base)
      const backfill = (start: number, end: number) =>
        sendSigned(
          "GET",
          `${base}/wellness-api/rest/backfill/dailies?summaryStartTimeInSeconds=${start}&summaryEndTimeInSeconds=${end}`,
          uat
        )
      const start = JUNE_10 - 5 * 86_400
      expect((yield* backfill(start, JUNE_10)).status).toBe(202)
      expect((yield* backfill(start, JUNE_10)).status).toBe(409)
      const tooLong = yield* backfill(JUNE_10 - 31 * 86_400, JUNE_10)
      expect(tooLong.status).toBe(400)
      expect(tooLong.json().errorMessage).toBeDefined()
      const hook = yield* receiver(() => 200)
      const deliveries = yield* sim.control.deliverBackfills(hook.url)
      expect(deliveries.map((d) => d.status)).toEqual([200])
      const pushed = JSON.parse(hook.received[0]!.body)
      expect(hook.received[0]!.headers["garmin-client-id"]).toBe(CLIENT.clientId)
      expect(pushed.dailies.length).toBeGreaterThanOrEqual(4)
      for (const daily of pushed.dailies) {
        expect(daily.startTimeInSeconds).toBeGreaterThanOrEqual(start)
        expect(daily.startTimeInSeconds).toBeLessThan(JUNE_10)
        expect(daily.durationInSeconds).toBe(86_400)
      }
      expect(sim.control.pendingBackfills()).toEqual([])
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("backfill needs HISTORICAL_DATA_EXPORT, which the consent form leaves unticked", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const requestToken = yield* garminRequestToken(base)
      const url = garminConfirmUrl(base, requestToken.key)
      const page = yield* get(url)
      const ticked = [...page.text.matchAll(/name="scope" value="([A-Z_]+)" checked/g)].map((m) => m[1]!)
      const location = (yield* postForm(url, { decision: "approve", consent_form: "1", scope: ticked })).location()
      const reply = yield* sendSigned("POST", `${base}/oauth-service/oauth/access_token`, requestToken, {
        oauth_verifier: location.searchParams.get("oauth_verifier")!
      })
      const params = new URLSearchParams(reply.text)
      const uat = { key: params.get("oauth_token")!, secret: params.get("oauth_token_secret")! }
      const permissions = (yield* sendSigned("GET", `${base}/wellness-api/rest/user/permissions`, uat)).json()
      expect(permissions).not.toContain("HISTORICAL_DATA_EXPORT")
      const backfill = yield* sendSigned(
        "GET",
        `${base}/wellness-api/rest/backfill/dailies?summaryStartTimeInSeconds=${
          JUNE_10 - 86_400
        }&summaryEndTimeInSeconds=${JUNE_10}`,
        uat
      )
      expect(backfill.status).toBe(403)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("push and ping deliveries carry garmin-client-id, and the ping's callback URL can be pulled", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base)
      const userId = (yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)).json().userId
      const hook = yield* receiver(() => 200)
      const pushed = yield* sim.control.pushDailies(hook.url, { userId, dates: ["2025-06-14", "2025-06-15"] })
      expect(pushed?.status).toBe(200)
      const push = JSON.parse(hook.received[0]!.body)
      expect(hook.received[0]!.headers["garmin-client-id"]).toBe(CLIENT.clientId)
      expect(push.dailies.map((d: any) => d.calendarDate)).toEqual(["2025-06-14", "2025-06-15"])
      expect(push.dailies[0]).toMatchObject({ userId, userAccessToken: uat.key })
      // today is still in progress: same summary id, growing totals on later pushes
      expect(push.dailies[1].durationInSeconds).toBeLessThan(86_400)
      yield* sim.control.pingDailies(hook.url, {
        userId,
        uploadStartTimeInSeconds: JUNE_10,
        uploadEndTimeInSeconds: JUNE_10 + 86_400
      })
      const ping = JSON.parse(hook.received[1]!.body).dailies[0]
      expect(ping).toMatchObject({ userId, userAccessToken: uat.key, uploadStartTimeInSeconds: JUNE_10 })
      expect(ping.callbackURL.startsWith(`${base}/wellness-api/rest/dailies?`)).toBe(true)
      const pulled = yield* sendSigned("GET", ping.callbackURL, uat)
      expect(pulled.status).toBe(200)
      expect(pulled.json().length).toBeGreaterThan(0)
      yield* sendSigned("DELETE", `${base}/wellness-api/rest/user/registration`, uat)
      expect(yield* sim.control.pushDailies(hook.url, { userId })).toBeUndefined()
      yield* sim.control.sendDeregistration(hook.url, { userId })
      expect(JSON.parse(hook.received[2]!.body)).toEqual({ deregistrations: [{ userId, userAccessToken: uat.key }] })
    }).pipe(Effect.provide(HttpLive)))
})
