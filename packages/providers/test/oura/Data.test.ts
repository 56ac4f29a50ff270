/**
 * Oura's adapter and data reader against the Oura simulator: the OAuth legs (authorization URL, exchange,
 * refresh with a rotated refresh token, revocation), windows read through every `next_token`, a day read whole
 * whatever `end_date` does, a malformed document quarantined without blocking its window, an unticked scope
 * skipped, and Oura's documented errors (401, 429 with Retry-After, 5xx) as `ProviderError`s.
 * Oura's pages: https://cloud.ouraring.com/docs/authentication, https://cloud.ouraring.com/docs/error-handling,
 * https://cloud.ouraring.com/v2/docs.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import { isInvalidGrant } from "@pulsebridge/providers"
import { OuraAdapter, OuraData, ouraDefaultEndpoints } from "@pulsebridge/providers/oura/index"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { callbackUrl, connectOura, ouraCredentials, withHttp } from "./Connect.js"

const window = { from: "2025-06-01", to: "2025-06-14" }
/** A window ending before yesterday (the clock is 2025-06-15). */
const past = { from: "2025-06-01", to: "2025-06-12" }

const days = (from: string, to: string) => {
  const out: Array<string> = []
  for (let ms = Date.parse(from); ms <= Date.parse(to); ms += 86_400_000) {
    out.push(new Date(ms).toISOString().slice(0, 10))
  }
  return out
}

describe("OuraAdapter", () => {
  it.effect("asks for Oura's consent with the default scopes, no PKCE", () =>
    Effect.gen(function*() {
      const start = yield* OuraAdapter.startAuthorization({
        credentials: ouraCredentials,
        endpoints: ouraDefaultEndpoints,
        callbackUrl,
        state: "s".repeat(43),
        scopes: [],
        codeVerifier: "v".repeat(43)
      })
      const url = new URL(start.authorizationUrl)
      expect(`${url.origin}${url.pathname}`).toBe("https://cloud.ouraring.com/oauth/authorize")
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: "code",
        client_id: ouraCredentials.clientId,
        redirect_uri: callbackUrl,
        scope: "personal daily workout spo2",
        state: "s".repeat(43)
      })
      expect(start.usesPkce).toBe(false)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("connects, refreshes with the rotated refresh token (the old one is spent) and revokes", () =>
    withHttp(Effect.gen(function*() {
      const { endpoints, providerUserId, sim, tokens } = yield* connectOura()
      expect(providerUserId).toMatch(/^[0-9a-f-]{36}$/)
      expect(tokens.scopes).toBe("personal daily workout spo2")
      const refreshed = yield* OuraAdapter.refresh({ credentials: ouraCredentials, endpoints, tokens })
      expect(Redacted.value(refreshed.refreshToken!)).not.toBe(Redacted.value(tokens.refreshToken!))
      const spent = yield* Effect.flip(OuraAdapter.refresh({ credentials: ouraCredentials, endpoints, tokens }))
      expect(spent).toMatchObject({ provider: "Oura", status: 400, code: "invalid_grant" })
      expect(isInvalidGrant(spent)).toBe(true)
      yield* OuraAdapter.revoke({ credentials: ouraCredentials, endpoints, tokens: refreshed })
      const after = yield* Effect.flip(
        OuraAdapter.providerUserId({ credentials: ouraCredentials, endpoints, tokens: refreshed })
      )
      expect(after).toMatchObject({ status: 401, code: "invalid_token" })
      expect(sim.control.calls({ path: "/oauth/revoke" })[0]?.status).toBe(200)
    })))
})

describe("OuraData.fetchWindow", () => {
  it.scopedLive("reads every collection through every next_token page, and every day of the window whole", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connectOura()
      const batch = yield* OuraData.fetchWindow(input(), past)
      expect(batch.quarantined).toEqual([])
      expect(batch.dailyActivity.map((d) => d.date)).toEqual(days(past.from, past.to))
      expect(batch.recovery.map((r) => r.date)).toEqual(days(past.from, past.to))
      expect(batch.sleep.filter((s) => !s.nap).map((s) => s.date)).toEqual(days(past.from, past.to))
      // the simulator's pages hold 5 documents: 14 days of each daily collection take 3 pages
      expect(sim.control.calls({ path: "/v2/usercollection/daily_readiness" }).length).toBeGreaterThanOrEqual(3)
      const served = sim.control.documents(providerUserId, "workout", past.from, past.to)
      expect(batch.workouts.map((w) => w.providerRecordId).sort()).toEqual(served.map((w) => w["id"]).sort())
      // every main sleep carries the day's score; every recovery the day's readiness
      expect(batch.sleep.filter((s) => !s.nap).every((s) => s.providerScore !== null)).toBe(true)
      expect(batch.recovery.every((r) => r.recoveryScore !== null && r.partial === true)).toBe(true)
      // the window does not reach the present: no personal info read
      expect(batch.bodyMeasurements).toEqual([])
    })))

  it.scopedLive("a window's last day keeps its evening workouts that start on the next UTC day", () =>
    withHttp(Effect.gen(function*() {
      // users west of UTC work out in the evening on the UTC day after their local one: Oura files a workout under
      // the UTC date of its start, with an exclusive end_date
      let crossing = 0
      for (const user of ["ana", "ben", "cai", "dee", "eli", "fay", "gus", "hal", "ida", "jon", "kim", "lea"]) {
        const { input, providerUserId, sim } = yield* connectOura({ user })
        const batch = yield* OuraData.fetchWindow(input(), past)
        const served = sim.control.documents(providerUserId, "workout", past.from, past.to)
        crossing += served.filter((w) =>
          w["day"] === past.to && String(w["start_datetime"]).startsWith(past.to) &&
          new Date(String(w["start_datetime"])).toISOString().slice(0, 10) > past.to
        ).length
        expect(batch.workouts.map((w) => w.providerRecordId).sort(), user).toEqual(
          served.map((w) => w["id"]).sort()
        )
      }
      expect(crossing).toBeGreaterThan(0)
    })))

  it.scopedLive("a window reaching today reads personal info (height, weight) as today's snapshot", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId } = yield* connectOura()
      const batch = yield* OuraData.fetchWindow(input(), { from: "2025-06-13", to: "2025-06-15" })
      expect(batch.bodyMeasurements).toHaveLength(1)
      expect(batch.bodyMeasurements[0]).toMatchObject({ providerRecordId: `${providerUserId}:2025-06-15` })
      expect(batch.bodyMeasurements[0]!.heightMeters).toBeGreaterThan(1.5)
      // today's activity is there, so far
      expect(batch.dailyActivity.map((d) => d.date)).toContain("2025-06-15")
    })))

  it.scopedLive("one malformed document is quarantined; the rest of its window is read", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connectOura()
      sim.control.malformRecords(providerUserId, "daily_activity", "2025-06-05")
      sim.control.malformRecords(providerUserId, "sleep", "2025-06-06")
      const batch = yield* OuraData.fetchWindow(input(), window)
      expect(batch.dailyActivity.map((d) => d.date)).not.toContain("2025-06-05")
      expect(batch.dailyActivity).toHaveLength(13)
      expect(batch.quarantined.map((q) => q.kind).sort()).toEqual(
        ["DailyActivity", ...batch.quarantined.filter((q) => q.kind === "Sleep").map(() => "Sleep")].sort()
      )
      expect(batch.quarantined.find((q) => q.kind === "Sleep")?.reason).toContain("bedtime_start")
      // the day's recovery still has its readiness and SpO2
      expect(batch.recovery.find((r) => r.date === "2025-06-06")?.recoveryScore).not.toBeNull()
    })))

  it.scopedLive("a scope unticked at consent is skipped; the rest is read", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connectOura({ granted: ["personal", "daily"] })
      const batch = yield* OuraData.fetchWindow(input(), window)
      expect(batch.workouts).toEqual([])
      expect(batch.recovery.every((r) => r.spo2Percent === null)).toBe(true)
      expect(sim.control.calls({ path: "/v2/usercollection/workout" })).toHaveLength(0)
      // a token whose scopes say nothing: Oura's 403 says it, and the collection is skipped
      const unsaid = yield* OuraData.fetchWindow(input({ tokens: { ...input().tokens, scopes: "" } }), window)
      expect(unsaid.workouts).toEqual([])
      expect(sim.control.calls({ path: "/v2/usercollection/workout", status: 403 })).toHaveLength(1)
    })))

  it.scopedLive("Oura's errors: 429 with its wait, 401 to refresh on, 5xx", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connectOura()
      sim.control.injectFault({ path: "/v2/usercollection/sleep", kind: "rateLimit", retryAfterSeconds: 42 })
      const limited = yield* Effect.flip(OuraData.fetchWindow(input(), window))
      expect(limited).toMatchObject({ provider: "Oura", status: 429, retryAfterSeconds: 42 })
      sim.control.injectFault({ path: "/v2/usercollection/daily_activity", kind: "expiredToken" })
      const expired = yield* Effect.flip(OuraData.fetchWindow(input(), window))
      expect(expired).toMatchObject({ status: 401, code: "invalid_token" })
      sim.control.injectFault({ path: "/v2/usercollection/workout", kind: "serverError" })
      expect(yield* Effect.flip(OuraData.fetchWindow(input(), window))).toMatchObject({ status: 500 })
      sim.control.injectFault({ path: "/v2/usercollection/workout", kind: "malformedJson" })
      const malformed = yield* Effect.flip(OuraData.fetchWindow(input(), window))
      expect(malformed.message).toContain("malformed response")
    })))

  it.effect("refuses a window that is not one", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        OuraData.fetchWindow({
          credentials: ouraCredentials,
          endpoints: ouraDefaultEndpoints,
          tokens: {
            accessToken: Redacted.make("a"),
            refreshToken: null,
            tokenSecret: null,
            expiresAt: null,
            scopes: ""
          },
          providerUserId: "u",
          now: new Date("2025-06-15T00:00:00Z")
        }, { from: "2025-06-10", to: "2025-06-01" })
      )
      expect(error.message).toContain("ends before it starts")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
