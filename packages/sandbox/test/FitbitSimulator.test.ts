/**
 * The Google Health API simulator (Fitbit's data since the Fitbit Web API was retired) over real
 * HTTP: Google's consent page and OAuth 2.0 (client in the form, PKCE S256, offline access and
 * `prompt=consent` for refresh tokens, refresh tokens kept, revoke), identity and settings, the
 * daily roll-ups with Google's checks and error bodies, the per-user quota, notifications and
 * subscriber verification, and the retired Web API's 410.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fitbitDailySummary, healthUserIdOf } from "../src/index.js"
import {
  CLIENT,
  fitbitAuthorizeUrl,
  fitbitConnect,
  formAction,
  get,
  GOOGLE_ACTIVITY,
  GOOGLE_PROFILE,
  GOOGLE_SETTINGS,
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

const clientForm = { client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret }

const token = (base: string, form: Record<string, string>) => postForm(`${base}/token`, { ...clientForm, ...form })

const approveFor = (url: string, form: Record<string, string | ReadonlyArray<string>> = {}) =>
  Effect.map(postForm(url, { decision: "approve", ...form }), (reply) => reply.location())

/** Consent (as `user`, ticking `ticked` when given) and the code exchange. */
const connectWith = (
  base: string,
  options: { user?: string; extra?: Record<string, string>; ticked?: ReadonlyArray<string> } = {}
) =>
  Effect.gen(function*() {
    const { challenge, verifier } = pkcePair()
    const url = fitbitAuthorizeUrl(base, { code_challenge: challenge, code_challenge_method: "S256", ...options.extra })
    const location = yield* approveFor(url, {
      user: options.user ?? "sandbox-user",
      ...(options.ticked === undefined ? {} : { consent_form: "1", scope: options.ticked })
    })
    const reply = yield* token(base, {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier
    })
    expect(reply.status, reply.text).toBe(200)
    return reply.json()
  })

const auth = (access: string) => ({ authorization: `Bearer ${access}` })

const rollUp = (base: string, access: string, dataType: string, body: unknown, user = "me") =>
  send("POST", `${base}/v4/users/${user}/dataTypes/${dataType}/dataPoints:dailyRollUp`, {
    headers: auth(access),
    json: body
  })

const day = (date: string) => ({
  date: { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) }
})
const range = (from: string, toExclusive: string) => ({ range: { start: day(from), end: day(toExclusive) } })

const expectGoogleError = (reply: { status: number; json: () => any }, status: number, name: string) => {
  expect(reply.status).toBe(status)
  expect(reply.json().error).toEqual({ code: status, message: expect.any(String), status: name })
}

describe("Fitbit (Google Health API) simulator", () => {
  it.scopedLive("the consent page lists Google Health scopes; approving redirects with code, state and the granted scope", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const url = fitbitAuthorizeUrl(base)
      const page = yield* get(url)
      expect(page.status).toBe(200)
      expect(formAction(page.text)).toBe(url)
      for (const scope of [GOOGLE_ACTIVITY, GOOGLE_SETTINGS, GOOGLE_PROFILE]) {
        expect(page.text).toContain(`name="scope" value="${scope}" checked`)
      }
      const approved = yield* approveFor(url, { consent_form: "1", scope: [GOOGLE_ACTIVITY] })
      expect(`${approved.origin}${approved.pathname}`).toBe(REDIRECT)
      expect(approved.searchParams.get("code")).toMatch(/.{20,}/)
      expect(approved.searchParams.get("state")).toBe(STATE)
      expect(approved.searchParams.get("scope")).toBe(GOOGLE_ACTIVITY)
      const denied = (yield* postForm(url, { decision: "deny" })).location()
      expect(Object.fromEntries(denied.searchParams)).toEqual({ error: "access_denied", state: STATE })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("authorize refuses an unknown client, a retired Fitbit scope and a plain PKCE challenge", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const unknown = yield* get(fitbitAuthorizeUrl(base, { client_id: "nobody" }))
      expect(unknown.status).toBe(401)
      expect(unknown.text).toContain("invalid_client")
      const oldScope = yield* get(fitbitAuthorizeUrl(base, { scope: "activity heartrate" }))
      expect(oldScope.status).toBe(400)
      expect(oldScope.text).toContain("invalid_scope")
      const plain = yield* get(
        fitbitAuthorizeUrl(base, { code_challenge: pkcePair().challenge, code_challenge_method: "plain" })
      )
      expect(plain.text).toContain("code_challenge_method")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the token endpoint checks the client, the redirect URI and the PKCE verifier, and names no user", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const { challenge, verifier } = pkcePair()
      const codeOf = () =>
        Effect.map(
          approveFor(fitbitAuthorizeUrl(base, { code_challenge: challenge, code_challenge_method: "S256" })),
          (l) => l.searchParams.get("code")!
        )
      const wrongSecret = yield* postForm(`${base}/token`, {
        client_id: CLIENT.clientId,
        client_secret: "nope",
        grant_type: "authorization_code",
        code: yield* codeOf(),
        redirect_uri: REDIRECT,
        code_verifier: verifier
      })
      expect(wrongSecret.status).toBe(401)
      expect(wrongSecret.json().error).toBe("invalid_client")
      const noVerifier = yield* token(base, {
        grant_type: "authorization_code",
        code: yield* codeOf(),
        redirect_uri: REDIRECT
      })
      expect(noVerifier.json()).toEqual({ error: "invalid_grant", error_description: "Missing code verifier." })
      const badVerifier = yield* token(base, {
        grant_type: "authorization_code",
        code: yield* codeOf(),
        redirect_uri: REDIRECT,
        code_verifier: pkcePair().verifier
      })
      expect(badVerifier.json()).toEqual({ error: "invalid_grant", error_description: "Invalid code verifier." })
      const ok = yield* token(base, {
        grant_type: "authorization_code",
        code: yield* codeOf(),
        redirect_uri: REDIRECT,
        code_verifier: verifier
      })
      expect(ok.json()).toEqual({
        access_token: expect.any(String),
        expires_in: 3599,
        refresh_token: expect.any(String),
        scope: `${GOOGLE_ACTIVITY} ${GOOGLE_SETTINGS} ${GOOGLE_PROFILE}`,
        token_type: "Bearer"
      })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a refresh token comes only with offline access, and again only with prompt=consent", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const online = yield* connectWith(base, { user: "olga", extra: { access_type: "online" } })
      expect(online.refresh_token).toBeUndefined()
      const first = yield* connectWith(base, { user: "olga", extra: { prompt: "" } })
      expect(first.refresh_token).toEqual(expect.any(String))
      const again = yield* connectWith(base, { user: "olga", extra: { prompt: "" } })
      expect(again.refresh_token).toBeUndefined()
      const consented = yield* connectWith(base, { user: "olga" })
      expect(consented.refresh_token).toEqual(expect.any(String))
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("refresh keeps the refresh token (usable again); revoke ends the grant; an unknown token is invalid_token", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      for (let i = 0; i < 2; i++) {
        const refreshed = yield* token(base, { grant_type: "refresh_token", refresh_token: tokens.refresh! })
        expect(refreshed.status).toBe(200)
        expect(refreshed.json().refresh_token).toBeUndefined()
        expect((yield* get(`${base}/v4/users/me/identity`, auth(refreshed.json().access_token))).status).toBe(200)
      }
      expect((yield* postForm(`${base}/revoke`, { token: tokens.refresh! })).status).toBe(200)
      expectGoogleError(yield* get(`${base}/v4/users/me/identity`, auth(tokens.access)), 401, "UNAUTHENTICATED")
      const spent = yield* token(base, { grant_type: "refresh_token", refresh_token: tokens.refresh! })
      expect(spent.json()).toEqual({ error: "invalid_grant", error_description: "Token has been expired or revoked." })
      expect((yield* postForm(`${base}/revoke`, { token: tokens.refresh! })).json().error).toBe("invalid_token")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("identity needs any Health scope, settings its own; another user's path is refused", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* connectWith(base, { user: "ida", ticked: [GOOGLE_ACTIVITY] })
      const identity = yield* get(`${base}/v4/users/me/identity`, auth(tokens.access_token))
      const id = healthUserIdOf("ida")
      expect(identity.json()).toEqual({
        name: `users/${id}/identity`,
        healthUserId: id,
        legacyUserId: expect.any(String)
      })
      expect((yield* get(`${base}/v4/users/${id}/identity`, auth(tokens.access_token))).status).toBe(200)
      expectGoogleError(yield* get(`${base}/v4/users/me/settings`, auth(tokens.access_token)), 403, "PERMISSION_DENIED")
      expectGoogleError(
        yield* get(`${base}/v4/users/123/identity`, auth(tokens.access_token)),
        403,
        "PERMISSION_DENIED"
      )
      expectGoogleError(yield* get(`${base}/v4/users/me/identity`), 401, "UNAUTHENTICATED")
      const full = yield* fitbitConnect(base, "ida")
      const settings = (yield* get(`${base}/v4/users/me/settings`, auth(full.access))).json()
      expect(settings.timeZone).toMatch(/^[A-Za-z_]+\/[A-Za-z_]+$|^UTC$/)
      expect(settings.utcOffset).toMatch(/^-?\d+s$/)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("dailyRollUp answers one point per civil day, values as Google writes them, from the data generator", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base, "dora")
      const id = healthUserIdOf("dora")
      const steps = yield* rollUp(base, tokens.access, "steps", {
        ...range("2025-06-01", "2025-06-04"),
        windowSizeDays: 1
      })
      expect(steps.status, steps.text).toBe(200)
      const points = steps.json().rollupDataPoints
      expect(points.map((p: any) => p.civilStartTime)).toEqual([
        day("2025-06-01"),
        day("2025-06-02"),
        day("2025-06-03")
      ])
      expect(points[0].civilEndTime).toEqual(day("2025-06-02"))
      const summary = fitbitDailySummary("pulsebridge", id, "2025-06-01", 1, "METRIC").summary
      expect(points[0].steps).toEqual({ countSum: String(summary.steps) })
      const distance = (yield* rollUp(base, tokens.access, "distance", range("2025-06-01", "2025-06-02"))).json()
      expect(distance.rollupDataPoints[0].distance.millimetersSum).toBe(
        String(Math.round(summary.distances[0]!.distance * 1_000_000))
      )
      const minutes = (yield* rollUp(base, tokens.access, "active-minutes", range("2025-06-01", "2025-06-02"))).json()
      const levels = minutes.rollupDataPoints[0].activeMinutes.activeMinutesRollupByActivityLevel
      expect(levels).toContainEqual({ activityLevel: "LIGHT", activeMinutesSum: String(summary.lightlyActiveMinutes) })
      const week =
        (yield* rollUp(base, tokens.access, "steps", { ...range("2025-06-01", "2025-06-15"), windowSizeDays: 7 }))
          .json().rollupDataPoints
      expect(week).toHaveLength(2)
      const firstWeek = ["01", "02", "03", "04", "05", "06", "07"].reduce(
        (sum, d) => sum + fitbitDailySummary("pulsebridge", id, `2025-06-${d}`, 1, "METRIC").summary.steps,
        0
      )
      expect(week[0].steps.countSum).toBe(String(firstWeek))
      expect(week[0].civilEndTime).toEqual(day("2025-06-08"))
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("dailyRollUp refuses what Google refuses, in Google's error body", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      const bad = (dataType: string, body: unknown) => rollUp(base, tokens.access, dataType, body)
      expectGoogleError(yield* bad("stepz", range("2025-06-01", "2025-06-02")), 400, "INVALID_ARGUMENT")
      expectGoogleError(yield* bad("activity-level", range("2025-06-01", "2025-06-02")), 400, "INVALID_ARGUMENT")
      expect((yield* bad("total-calories", range("2025-06-01", "2025-06-16"))).status).toBe(400)
      expect((yield* bad("total-calories", range("2025-06-01", "2025-06-15"))).status).toBe(200)
      expect((yield* bad("steps", range("2025-03-01", "2025-05-30"))).status).toBe(200)
      expect((yield* bad("steps", range("2025-03-01", "2025-05-31"))).json().error.status).toBe("INVALID_ARGUMENT")
      expectGoogleError(yield* bad("steps", range("2025-06-02", "2025-06-02")), 400, "INVALID_ARGUMENT")
      for (const windowSizeDays of [0, -1, 1.5, "1", 3]) {
        expectGoogleError(
          yield* bad("steps", { ...range("2025-06-01", "2025-06-03"), windowSizeDays }),
          400,
          "INVALID_ARGUMENT"
        )
      }
      for (const pageSize of [-1, 2.5, "10"]) {
        expectGoogleError(
          yield* bad("steps", { ...range("2025-06-01", "2025-06-03"), pageSize }),
          400,
          "INVALID_ARGUMENT"
        )
      }
      // an oversized page is refused, not cut to 10,000
      expectGoogleError(
        yield* bad("steps", { ...range("2025-06-01", "2025-06-03"), pageSize: 50_000 }),
        400,
        "INVALID_ARGUMENT"
      )
      const one = yield* bad("steps", { ...range("2025-06-01", "2025-06-04"), pageSize: 1 })
      expect(one.json().rollupDataPoints).toHaveLength(1)
      expectGoogleError(
        yield* bad("steps", { ...range("2025-06-01", "2025-06-03"), pageToken: "x" }),
        400,
        "INVALID_ARGUMENT"
      )
      expectGoogleError(
        yield* bad("steps", { range: { start: { date: { year: 2025, month: 2, day: 30 } }, end: day("2025-03-02") } }),
        400,
        "INVALID_ARGUMENT"
      )
      expectGoogleError(yield* bad("steps", {}), 400, "INVALID_ARGUMENT")
      const notJson = yield* send("POST", `${base}/v4/users/me/dataTypes/steps/dataPoints:dailyRollUp`, {
        headers: { ...auth(tokens.access), "content-type": "application/json" },
        form: { a: "b" }
      })
      expectGoogleError(notJson, 400, "INVALID_ARGUMENT")
      expectGoogleError(yield* bad("weight", range("2025-06-01", "2025-06-02")), 403, "PERMISSION_DENIED")
      expectGoogleError(
        yield* rollUp(base, tokens.access, "steps", range("2025-06-01", "2025-06-02"), "999"),
        403,
        "PERMISSION_DENIED"
      )
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("300 calls a minute per user, then 429 RESOURCE_EXHAUSTED until the minute turns", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("Fitbit", clock)
      const tokens = yield* fitbitConnect(base)
      let last = yield* get(`${base}/v4/users/me/identity`, auth(tokens.access))
      for (let i = 1; i < 300; i++) last = yield* get(`${base}/v4/users/me/identity`, auth(tokens.access))
      expect(last.status).toBe(200)
      expectGoogleError(yield* get(`${base}/v4/users/me/identity`, auth(tokens.access)), 429, "RESOURCE_EXHAUSTED")
      clock.advance(60_000)
      expect((yield* get(`${base}/v4/users/me/identity`, auth(tokens.access))).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the retired Fitbit Web API's paths answer 410 Gone", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      expect((yield* get(`${base}/1/user/-/activities/date/2025-06-10.json`)).status).toBe(410)
      expect((yield* postForm(`${base}/oauth2/token`, { grant_type: "refresh_token" })).status).toBe(410)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("notifications carry the subscriber's Authorization and say which days of which data type changed", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Fitbit", new ManualClock())
      const secret = "Bearer subscriber-secret"
      const hook = yield* receiver((r) => r.headers["authorization"] === secret ? 201 : 401)
      const verification = yield* sim.control.verifySubscriber(hook.url, secret)
      expect(verification).toEqual({ withAuthorizationStatus: 201, withoutAuthorizationStatus: 401, verified: true })
      expect(hook.received.map((r) => JSON.parse(r.body))).toEqual([{ type: "verification" }, { type: "verification" }])
      const wrong = yield* receiver(() => 201)
      expect((yield* sim.control.verifySubscriber(wrong.url, secret)).verified).toBe(false)
      void base
      yield* sim.control.notifyChange(hook.url, {
        healthUserId: "1234567890",
        dataType: "steps",
        from: "2025-06-10",
        to: "2025-06-11",
        authorization: secret
      })
      const delivered = hook.received[2]!
      expect(delivered.headers["authorization"]).toBe(secret)
      expect(delivered.headers["x-healthapi-signature"]).toMatch(/^[A-Za-z0-9+/=]+$/)
      expect(JSON.parse(delivered.body)).toEqual({
        data: {
          version: "1",
          healthUserId: "1234567890",
          operation: "UPSERT",
          dataType: "steps",
          intervals: [{
            physicalTimeInterval: { startTime: "2025-06-10T00:00:00Z", endTime: "2025-06-12T00:00:00Z" },
            civilIso8601TimeInterval: { startTime: "2025-06-10T00:00:00", endTime: "2025-06-12T00:00:00" }
          }]
        }
      })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a range longer than allowed is Google's JSON error: INVALID_ROLLUP_QUERY_DURATION with maxDurationDays", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const tokens = yield* fitbitConnect(base)
      for (
        const [dataType, to, max] of [["total-calories", "2025-06-16", "14"], ["steps", "2025-08-31", "90"]] as const
      ) {
        const reply = yield* rollUp(base, tokens.access, dataType, range("2025-06-01", to))
        expect(reply.status).toBe(400)
        expect(reply.json()).toEqual({
          error: {
            code: 400,
            message: expect.any(String),
            status: "INVALID_ARGUMENT",
            details: [{
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "INVALID_ROLLUP_QUERY_DURATION",
              domain: "health.googleapis.com",
              metadata: { dataType, maxDurationDays: max }
            }]
          }
        })
      }
      // a page of windows longer than the range allows, likewise
      const paged = yield* rollUp(base, tokens.access, "total-calories", {
        ...range("2025-06-01", "2025-06-03"),
        pageSize: 15
      })
      expect(paged.json().error.details[0].reason).toBe("INVALID_ROLLUP_QUERY_DURATION")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("lists sleep, exercise, daily metrics and weighings newest first, 25 sessions a page, following page tokens", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Fitbit", new ManualClock())
      const sleepScope = "https://www.googleapis.com/auth/googlehealth.sleep.readonly"
      const metricsScope = "https://www.googleapis.com/auth/googlehealth.health_metrics_and_measurements.readonly"
      const reply = yield* connectWith(base, {
        extra: { scope: `${GOOGLE_ACTIVITY} ${sleepScope} ${metricsScope}` }
      })
      const list = (dataType: string, query: Record<string, string>) =>
        get(
          `${base}/v4/users/me/dataTypes/${dataType}/dataPoints?${new URLSearchParams(query)}`,
          auth(reply.access_token)
        )
      const sleepFilter =
        "sleep.interval.civil_end_time >= \"2025-05-01\" AND sleep.interval.civil_end_time < \"2025-06-01\""
      const first = yield* list("sleep", { filter: sleepFilter })
      expect(first.status).toBe(200)
      const page1 = first.json()
      expect(page1.dataPoints).toHaveLength(25)
      expect(typeof page1.nextPageToken).toBe("string")
      const second = (yield* list("sleep", { filter: sleepFilter, pageToken: page1.nextPageToken })).json()
      const sleeps = [...page1.dataPoints, ...second.dataPoints]
      // a sleep every night of May, and naps some days; newest first
      const nights = sleeps.filter((p: any) => !p.sleep.metadata.nap)
      expect(nights).toHaveLength(31)
      const starts = sleeps.map((p: any) => Date.parse(p.sleep.interval.startTime))
      expect(starts).toEqual([...starts].sort((a, b) => b - a))
      expect(second.nextPageToken).toBeUndefined()
      // as Google writes them: int64 as strings, offsets as seconds
      expect(nights[0].sleep.summary.minutesAsleep).toMatch(/^\d+$/)
      expect(nights[0].sleep.interval.endUtcOffset).toMatch(/^-?\d+s$/)
      // more than 25 sessions a page is refused, as is a token of another query
      expectGoogleError(yield* list("sleep", { filter: sleepFilter, pageSize: "26" }), 400, "INVALID_ARGUMENT")
      expectGoogleError(
        yield* list("exercise", { pageToken: page1.nextPageToken }),
        400,
        "INVALID_ARGUMENT"
      )
      expectGoogleError(
        yield* list("sleep", { filter: "steps.interval.start_time >= \"2025-05-01\"" }),
        400,
        "INVALID_ARGUMENT"
      )

      const exercise = (yield* list("exercise", {
        filter:
          "exercise.interval.civil_start_time >= \"2025-05-01\" AND exercise.interval.civil_start_time < \"2025-05-29\""
      })).json()
      // most days, not every day
      expect(exercise.dataPoints.length).toBeGreaterThan(10)
      expect(exercise.dataPoints.length + (exercise.nextPageToken === undefined ? 0 : 1)).toBeLessThanOrEqual(26)
      const rhr = (yield* list("daily-resting-heart-rate", {
        filter: "daily_resting_heart_rate.date >= \"2025-05-01\" AND daily_resting_heart_rate.date < \"2025-05-15\""
      })).json()
      expect(rhr.dataPoints.map((p: any) => p.dailyRestingHeartRate.date.day)).toEqual(
        Array.from({ length: 14 }, (_, i) => 14 - i)
      )
      const weights = (yield* list("weight", {
        filter: "weight.sample_time.civil_time >= \"2025-05-01\" AND weight.sample_time.civil_time < \"2025-06-01\""
      })).json()
      // at least one a week
      expect(weights.dataPoints.length).toBeGreaterThanOrEqual(4)
      expect(typeof weights.dataPoints[0].weight.weightGrams).toBe("number")
      // the same seed, user and day give the same points
      expect((yield* list("sleep", { filter: sleepFilter })).json()).toEqual(page1)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("Google sends no notification for active minutes or active energy; notifications are signed with the simulator's key", () =>
    Effect.gen(function*() {
      const { sim } = yield* served("Fitbit", new ManualClock())
      const hook = yield* receiver(() => 204)
      for (const dataType of ["active-minutes", "active-energy-burned"]) {
        const exit = yield* Effect.exit(sim.control.notifyChange(hook.url, {
          healthUserId: "1",
          dataType,
          from: "2025-06-10",
          to: "2025-06-10",
          authorization: "Bearer s"
        }))
        expect(exit._tag).toBe("Failure")
      }
      expect(hook.received).toHaveLength(0)
      yield* sim.control.notifyChange(hook.url, {
        healthUserId: "1",
        dataType: "sleep",
        from: "2025-06-10",
        to: "2025-06-10",
        authorization: "Bearer s"
      })
      const signature = Buffer.from(hook.received[0]!.headers["x-healthapi-signature"]!, "base64")
      const keyset = JSON.parse(sim.control.webhookKeyset())
      // Tink's prefix: version 1, then the id of the keyset's key
      expect(signature[0]).toBe(1)
      expect(signature.readUInt32BE(1)).toBe(keyset.primaryKeyId)
      expect(keyset.key[0]).toMatchObject({ status: "ENABLED", outputPrefixType: "TINK" })
    }).pipe(Effect.provide(HttpLive)))
})
