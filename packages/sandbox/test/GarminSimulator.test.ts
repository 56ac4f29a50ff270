/**
 * The Garmin simulator over real HTTP, signed with the `oauth-1.0a` package: the three OAuth 1.0a
 * legs and signature checks, user endpoints, deregistration, dailies pull, backfill and pushes;
 * and OAuth 2.0 as Garmin has it since its move: PKCE authorize, token and refresh, the token
 * exchange of an OAuth 1.0a user, bearer calls, pull tokens in pings, 403 for a revoked token,
 * 412 for what the user did not permit, and permission-change deliveries.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { garminDaily } from "../src/index.js"
import {
  bearer,
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
  pkcePair,
  postForm,
  receiver,
  REDIRECT,
  send,
  sendSigned,
  served,
  signed,
  STATE
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
      // Garmin answers a revoked token 403
      const after = yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)
      expect(after.status).toBe(403)
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
        // start and span covered, in hex
        expect(daily.summaryId).toMatch(/^x[0-9a-f]{7}-[0-9a-f]+-[0-9a-f]+$/)
        const localStart = daily.startTimeInSeconds + daily.startTimeOffsetInSeconds
        expect(localStart % 86_400).toBe(0)
        if ("calendarDate" in daily) expect(Date.parse(`${daily.calendarDate}T00:00:00Z`) / 1000).toBe(localStart)
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
      // the partial day is another upload: another summaryId, the same day's start
      const half = garminDaily("pulsebridge", "a".repeat(32), "2025-06-10", 0.5)
      expect(half.summaryId).not.toBe(alice.summaryId)
      expect(half.startTimeInSeconds).toBe(alice.startTimeInSeconds)
      expect("calendarDate" in half).toBe("calendarDate" in alice)
      expect(half.steps).toBeLessThan(alice.steps)
      // about one day in four has no calendarDate, as the Health API allows
      const month = Array.from({ length: 30 }, (_, i) =>
        garminDaily("pulsebridge", "a".repeat(32), `2025-05-${String(i + 1).padStart(2, "0")}`, 1))
      const undated = month.filter((d) =>
        !("calendarDate" in d)
      ).length
      expect(undated).toBeGreaterThan(0)
      expect(undated).toBeLessThan(20)
      expect(alice.durationInSeconds).toBe(86_400)
      expect(alice.moderateIntensityDurationInSeconds + alice.vigorousIntensityDurationInSeconds).toBeLessThanOrEqual(
        alice.activeTimeInSeconds
      )
    }))

  it.scopedLive("backfill answers 202, refuses duplicates and ranges over 90 days, and pushes later", () =>
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
      const tooLong = yield* backfill(JUNE_10 - 91 * 86_400, JUNE_10)
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
      // Precondition Failed: the permission is missing (403 would mean a revoked token)
      expect(backfill.status).toBe(412)
      expect(backfill.json().errorMessage).toContain("HISTORICAL_DATA_EXPORT")
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
      expect(push.dailies.map((d: any) => (d.startTimeInSeconds + d.startTimeOffsetInSeconds) / 86_400)).toEqual([
        Date.parse("2025-06-14") / 86_400_000,
        Date.parse("2025-06-15") / 86_400_000
      ])
      expect(push.dailies[0]).toMatchObject({ userId, userAccessToken: uat.key })
      // today is still in progress: a partial day, whose full upload will come under another summaryId
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

describe("Garmin simulator, OAuth 2.0", () => {
  const authorizeUrl = (base: string, challenge: string, extra: Record<string, string> = {}) =>
    `${base}/oauth2Confirm?${new URLSearchParams({
      response_type: "code",
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT,
      state: STATE,
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...extra
    })}`

  const tokenUrl = (base: string) => `${base}/di-oauth2-service/oauth/token`

  /** PKCE consent approved (with only `granted` ticked, when given) and the code exchanged. */
  const connect2 = (base: string, user = "sandbox-user", granted?: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const { challenge, verifier } = pkcePair()
      const form: Record<string, string | ReadonlyArray<string>> = granted === undefined
        ? { decision: "approve", user }
        : { decision: "approve", user, consent_form: "1", scope: granted }
      const code = (yield* postForm(authorizeUrl(base, challenge), form)).location().searchParams.get("code")!
      const reply = yield* postForm(tokenUrl(base), {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret
      })
      expect(reply.status).toBe(200)
      return reply.json() as { access_token: string; refresh_token: string }
    })

  it.scopedLive("authorize needs an S256 challenge; the token endpoint checks verifier, redirect URI and client", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Garmin", new ManualClock())
      const { challenge, verifier } = pkcePair()
      const page = yield* get(authorizeUrl(base, challenge))
      expect(page.status).toBe(200)
      expect(page.text).toContain(`value="HISTORICAL_DATA_EXPORT">`)
      const noPkce = (yield* get(authorizeUrl(base, challenge, { code_challenge_method: "plain" }))).location()
      expect(noPkce.searchParams.get("error")).toBe("invalid_request")
      const approved = (yield* postForm(authorizeUrl(base, challenge), { decision: "approve" })).location()
      expect(approved.searchParams.get("state")).toBe(STATE)
      const code = approved.searchParams.get("code")!
      const exchange = (extra: Record<string, string>) =>
        postForm(tokenUrl(base), {
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret,
          ...extra
        })
      const badVerifier = yield* exchange({ code_verifier: "x".repeat(43) })
      expect(badVerifier.status).toBe(400)
      expect(badVerifier.json().error).toBe("invalid_grant")
      // the code is single use even when the exchange failed
      expect((yield* exchange({ code_verifier: verifier })).json().error).toBe("invalid_grant")
      const tokens = yield* connect2(base)
      const body = yield* postForm(tokenUrl(base), {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: CLIENT.clientId,
        client_secret: "wrong"
      })
      expect(body.status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("tokens live 86,400 s with refresh tokens of ~90 days that rotate; the bearer token reads the user", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("Garmin", clock)
      const { challenge, verifier } = pkcePair()
      const code = (yield* postForm(authorizeUrl(base, challenge), { decision: "approve" })).location().searchParams
        .get("code")!
      const reply = yield* postForm(tokenUrl(base), {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret
      })
      expect(reply.json()).toMatchObject({
        token_type: "bearer",
        expires_in: 86_400,
        refresh_token_expires_in: 7_776_000,
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        jti: expect.any(String)
      })
      const { access_token, refresh_token } = reply.json()
      const id = yield* get(`${base}/wellness-api/rest/user/id`, bearer(access_token))
      expect(id.json().userId).toMatch(/^[0-9a-f]{32}$/)
      clock.advance(86_400_000)
      expect((yield* get(`${base}/wellness-api/rest/user/id`, bearer(access_token))).status).toBe(401)
      const refresh = (token: string) =>
        postForm(tokenUrl(base), {
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret
        })
      const rotated = yield* refresh(refresh_token)
      expect(rotated.status).toBe(200)
      expect(rotated.json().refresh_token).not.toBe(refresh_token)
      expect((yield* refresh(refresh_token)).json().error).toBe("invalid_grant")
      expect((yield* get(`${base}/wellness-api/rest/user/id`, bearer(rotated.json().access_token))).status).toBe(200)
      clock.advance(7_776_000_000)
      expect((yield* refresh(rotated.json().refresh_token)).json()).toMatchObject({ error: "invalid_grant" })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the token exchange turns a signed OAuth 1.0a token into an OAuth 2.0 pair with no consent", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base, "carol")
      const userId = (yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)).json().userId
      const url = `${base}/partner-gateway/rest/user/token-exchange`
      expect((yield* send("POST", url)).status).toBe(401)
      const exchanged = yield* sendSigned("POST", url, uat)
      expect(exchanged.status).toBe(200)
      expect(exchanged.json()).toMatchObject({ expires_in: 86_400, refresh_token_expires_in: 7_776_000 })
      const access = exchanged.json().access_token
      expect((yield* get(`${base}/wellness-api/rest/user/id`, bearer(access))).json().userId).toBe(userId)
      // the OAuth 1.0a token keeps working until Garmin retires it
      expect((yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)).status).toBe(200)
      // after the move, deliveries name the user only, and pings carry a pull token
      const hook = yield* receiver(() => 200)
      yield* sim.control.pushDailies(hook.url, { userId, dates: ["2025-06-14"] })
      expect(JSON.parse(hook.received[0]!.body).dailies[0].userAccessToken).toBeUndefined()
      yield* sim.control.pingDailies(hook.url, {
        userId,
        uploadStartTimeInSeconds: JUNE_10,
        uploadEndTimeInSeconds: JUNE_10 + 86_400
      })
      const ping = JSON.parse(hook.received[1]!.body).dailies[0]
      expect(ping.userAccessToken).toBeUndefined()
      expect(new URL(ping.callbackURL).searchParams.get("token")).toMatch(/.{16,}/)
      // revoked: the exchange is refused with 403
      yield* sendSigned("DELETE", `${base}/wellness-api/rest/user/registration`, uat)
      expect((yield* sendSigned("POST", url, uat)).status).toBe(403)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("bearer calls: unsolicited pulls refused, a ping's callbackURL pulled as it is, 403 once revoked", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const tokens = yield* connect2(base, "dave")
      const auth = bearer(tokens.access_token)
      const userId = (yield* get(`${base}/wellness-api/rest/user/id`, auth)).json().userId
      const window = `uploadStartTimeInSeconds=${JUNE_10}&uploadEndTimeInSeconds=${JUNE_10 + 86_400}`
      const unsolicited = yield* get(`${base}/wellness-api/rest/dailies?${window}`, auth)
      expect(unsolicited.status).toBe(400)
      expect(unsolicited.json()).toEqual({ errorMessage: "InvalidPullTokenException failure" })
      const hook = yield* receiver(() => 200)
      yield* sim.control.pingDailies(hook.url, {
        userId,
        uploadStartTimeInSeconds: JUNE_10,
        uploadEndTimeInSeconds: JUNE_10 + 86_400
      })
      const callbackURL: string = JSON.parse(hook.received[0]!.body).dailies[0].callbackURL
      const pulled = yield* get(callbackURL, auth)
      expect(pulled.status).toBe(200)
      expect(pulled.json().length).toBeGreaterThan(0)
      expect(pulled.text).not.toContain("userAccessToken")
      // the pull token is good for its own window only
      const otherWindow = callbackURL.replace(String(JUNE_10 + 86_400), String(JUNE_10 + 3600))
      expect((yield* get(otherWindow, auth)).status).toBe(400)
      sim.control.revokeUser(userId)
      const revoked = yield* get(`${base}/wellness-api/rest/user/id`, auth)
      expect(revoked.status).toBe(403)
      expect((yield* get(callbackURL, auth)).status).toBe(403)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("412 for a summary type without permission; a permission change is delivered and applied", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const tokens = yield* connect2(base, "erin", ["ACTIVITY_EXPORT", "HISTORICAL_DATA_EXPORT"])
      const auth = bearer(tokens.access_token)
      const userId = (yield* get(`${base}/wellness-api/rest/user/id`, auth)).json().userId
      const backfill = (start: number, end: number) =>
        get(
          `${base}/wellness-api/rest/backfill/dailies?summaryStartTimeInSeconds=${start}&summaryEndTimeInSeconds=${end}`,
          auth
        )
      const refused = yield* backfill(JUNE_10 - 86_400, JUNE_10)
      expect(refused.status).toBe(412)
      const hook = yield* receiver(() => 200)
      const delivered = yield* sim.control.changePermissions(hook.url, {
        userId,
        permissions: ["ACTIVITY_EXPORT", "HEALTH_EXPORT", "HISTORICAL_DATA_EXPORT"]
      })
      expect(delivered?.status).toBe(200)
      expect(hook.received[0]!.headers["garmin-client-id"]).toBe(CLIENT.clientId)
      const change = JSON.parse(hook.received[0]!.body).userPermissionsChange[0]
      expect(change).toMatchObject({
        userId,
        permissions: ["ACTIVITY_EXPORT", "HEALTH_EXPORT", "HISTORICAL_DATA_EXPORT"],
        changeTimeInSeconds: expect.any(Number),
        summaryId: expect.any(String)
      })
      expect(change.userAccessToken).toBeUndefined()
      expect((yield* backfill(JUNE_10 - 86_400, JUNE_10)).status).toBe(202)
      expect((yield* backfill(JUNE_10 - 89 * 86_400, JUNE_10)).status).toBe(202)
      expect((yield* backfill(JUNE_10 - 91 * 86_400, JUNE_10)).status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))
})
