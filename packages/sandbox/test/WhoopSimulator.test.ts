/**
 * The WHOOP simulator over real HTTP: consent and `state` rules, body client credentials,
 * rotation with reuse detection, revoke, paginated collections, by-id routes, limits, webhooks.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { whoopSignature } from "../src/index.js"
import {
  basic,
  bearer,
  CLIENT,
  formAction,
  get,
  HttpLive,
  ManualClock,
  postForm,
  receiver,
  REDIRECT,
  send,
  served,
  STATE,
  whoopAuthorizeUrl,
  whoopConnect
} from "./simulatorHarness.js"

const tokenUrl = (base: string) => `${base}/oauth/oauth2/token`

const withClient = (form: Record<string, string>) => ({
  ...form,
  client_id: CLIENT.clientId,
  client_secret: CLIENT.clientSecret
})

const collect = (base: string, access: string, path: string, query: Record<string, string>) =>
  Effect.gen(function*() {
    const pages: Array<any> = []
    let next: string | undefined
    do {
      const params = new URLSearchParams({ ...query, ...(next === undefined ? {} : { nextToken: next }) })
      const reply = yield* get(`${base}/developer/v2/${path}?${params}`, bearer(access))
      expect(reply.status).toBe(200)
      const body = reply.json()
      pages.push(body)
      next = body.next_token
    } while (next !== undefined && pages.length < 100)
    return pages
  })

describe("WHOOP simulator", () => {
  it.scopedLive("the consent page posts back to itself; approve redirects with code, scope and state", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const url = whoopAuthorizeUrl(base)
      const page = yield* get(url)
      expect(page.status).toBe(200)
      expect(formAction(page.text)).toBe(url)
      expect(page.text).toContain(`name="scope" value="offline" checked`)
      const approved = (yield* postForm(url, { decision: "approve" })).location()
      expect(`${approved.origin}${approved.pathname}`).toBe(REDIRECT)
      expect(approved.searchParams.get("code")).toMatch(/.{20,}/)
      expect(approved.searchParams.get("state")).toBe(STATE)
      const denied = (yield* postForm(url, { decision: "deny" })).location()
      expect(denied.searchParams.get("error")).toBe("access_denied")
      expect(denied.searchParams.get("state")).toBe(STATE)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a state shorter than 8 characters is refused with invalid_state before consent", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const reply = yield* get(whoopAuthorizeUrl(base, { state: "short" }))
      expect(reply.status).toBe(302)
      expect(reply.location().searchParams.get("error")).toBe("invalid_state")
      const unknown = yield* get(whoopAuthorizeUrl(base, { client_id: "nobody" }))
      expect(unknown.status).toBe(400)
      expect(unknown.headers["content-type"]).toContain("text/html")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the token endpoint takes client credentials in the body and answers Hydra-style errors", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const code = (yield* postForm(whoopAuthorizeUrl(base), { decision: "approve" })).location().searchParams.get(
        "code"
      )!
      const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT }
      const viaBasic = yield* postForm(tokenUrl(base), form, basic(CLIENT.clientId, CLIENT.clientSecret))
      expect(viaBasic.status).toBe(401)
      const wrong = yield* postForm(tokenUrl(base), { ...form, client_id: CLIENT.clientId, client_secret: "nope" })
      expect(wrong.status).toBe(401)
      expect(wrong.json()).toEqual({ error: "invalid_client", error_description: expect.any(String), status_code: 401 })
      const ok = yield* postForm(tokenUrl(base), withClient(form))
      expect(ok.status).toBe(200)
      expect(ok.json()).toEqual({
        access_token: expect.any(String),
        expires_in: 3600,
        refresh_token: expect.any(String),
        scope: "offline read:recovery read:cycles read:workout read:sleep read:profile read:body_measurement",
        token_type: "bearer"
      })
      const reused = yield* postForm(tokenUrl(base), withClient(form))
      expect(reused.status).toBe(400)
      expect(reused.json()).toMatchObject({ error: "invalid_grant", status_code: 400 })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("without the offline scope there is no refresh token", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base, "sandbox-user", { scope: "read:cycles" })
      expect(tokens.refresh).toBeNull()
      expect(tokens.body.scope).toBe("read:cycles")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("refresh rotates, and presenting a spent refresh token revokes the grant", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("WHOOP", new ManualClock())
      const first = yield* whoopConnect(base)
      const refresh = (refresh_token: string) =>
        postForm(tokenUrl(base), withClient({ grant_type: "refresh_token", refresh_token, scope: "offline" }))
      const second = (yield* refresh(first.refresh!)).json()
      expect(second.refresh_token).not.toBe(first.refresh)
      expect((yield* get(`${base}/developer/v2/cycle`, bearer(second.access_token))).status).toBe(200)
      const spent = yield* refresh(first.refresh!)
      expect(spent.status).toBe(400)
      expect(spent.json().error).toBe("invalid_grant")
      expect((yield* refresh(second.refresh_token)).status).toBe(400)
      expect((yield* get(`${base}/developer/v2/cycle`, bearer(second.access_token))).status).toBe(401)
      expect(sim.control.calls({ presented: first.refresh! })).toHaveLength(2)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("revoking access answers 204, then the API answers 401 and webhooks stop", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const userId = (yield* get(`${base}/developer/v2/user/profile/basic`, bearer(tokens.access))).json().user_id
      const revoked = yield* send("DELETE", `${base}/developer/v2/user/access`, { headers: bearer(tokens.access) })
      expect(revoked.status).toBe(204)
      expect((yield* get(`${base}/developer/v2/cycle`, bearer(tokens.access))).status).toBe(401)
      const refreshed = yield* postForm(
        tokenUrl(base),
        withClient({ grant_type: "refresh_token", refresh_token: tokens.refresh! })
      )
      expect(refreshed.status).toBe(400)
      const hook = yield* receiver()
      expect(yield* sim.control.sendWebhook(hook.url, { userId, type: "sleep.updated", id: "x" })).toBeUndefined()
      expect(hook.received).toHaveLength(0)
      expect(sim.control.calls({ method: "DELETE", path: "/developer/v2/user/access" })).toHaveLength(1)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("an expired access token answers 401", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("WHOOP", clock)
      const tokens = yield* whoopConnect(base)
      clock.advance(3_600_000)
      const reply = yield* get(`${base}/developer/v2/cycle`, bearer(tokens.access))
      expect(reply.status).toBe(401)
      expect(reply.json().error).toBe("invalid_token")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("pagination returns every record exactly once, newest first, across pages", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const window = { start: "2025-06-01T00:00:00.000Z", end: "2025-06-15T00:00:00.000Z" }
      for (const path of ["cycle", "recovery", "activity/sleep", "activity/workout"]) {
        const all = (yield* collect(base, tokens.access, path, { ...window, limit: "25" })).flatMap((p) => p.records)
        const paged = yield* collect(base, tokens.access, path, { ...window, limit: "3" })
        const records = paged.flatMap((p) => p.records)
        expect(records).toEqual(all)
        const ids = records.map((r: any) => r.id ?? r.cycle_id)
        expect(new Set(ids).size).toBe(ids.length)
        expect(paged.length).toBeGreaterThan(1)
        expect(paged.slice(0, -1).every((p) => p.records.length === 3)).toBe(true)
        expect(paged[paged.length - 1].next_token).toBeUndefined()
        const starts = path === "recovery" ? [] : records.map((r: any) => Date.parse(r.start))
        expect(starts).toEqual([...starts].sort((a, b) => b - a))
      }
      const cycles = (yield* collect(base, tokens.access, "cycle", { ...window, limit: "25" })).flatMap((p) =>
        p.records
      )
      expect(cycles.length).toBeGreaterThanOrEqual(14)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("limit defaults to 10 and may not exceed 25", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const page = (yield* get(`${base}/developer/v2/cycle`, bearer(tokens.access))).json()
      expect(page.records).toHaveLength(10)
      expect(typeof page.next_token).toBe("string")
      expect((yield* get(`${base}/developer/v2/cycle?limit=26`, bearer(tokens.access))).status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the running cycle is SCORED with end null and the strain so far; finished cycles are scored", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("WHOOP", clock)
      const tokens = yield* whoopConnect(base)
      const [current, previous] = (yield* get(`${base}/developer/v2/cycle?limit=2`, bearer(tokens.access))).json()
        .records
      expect(current).toHaveProperty("end", null)
      expect(current.score_state).toBe("SCORED")
      expect(current.score.strain).toBeGreaterThanOrEqual(0)
      expect(current.updated_at).toBe(new Date(clock.ms).toISOString())
      expect(previous.end).toBe(current.start)
      expect(previous.score_state).toBe("SCORED")
      expect(previous.score.strain).toBeGreaterThanOrEqual(0)
      expect(previous.score.strain).toBeLessThanOrEqual(21)
      expect(previous.score.kilojoule).toBeGreaterThan(1000)
      expect(previous.timezone_offset).toMatch(/^[+-]\d{2}:\d{2}$/)
      // the running strain grows as the cycle goes on
      clock.advance(3 * 3_600_000)
      const later = (yield* get(`${base}/developer/v2/cycle/${current.id}`, bearer(tokens.access))).json()
      if (later.end === null) expect(later.score.strain).toBeGreaterThan(current.score.strain)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a cycle just ended is PENDING_SCORE and an unscorable day UNSCORABLE, both with score null", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base, sim } = yield* served("WHOOP", clock)
      const tokens = yield* whoopConnect(base)
      const userId = (yield* get(`${base}/developer/v2/user/profile/basic`, bearer(tokens.access))).json().user_id
      const running = sim.control.latest(userId, "cycle") as any
      const byId = () =>
        (sim.control.records(userId, "cycle", { start: Date.parse(running.start) }) as Array<any>).find((c) =>
          c.id === running.id
        )
      // a day on, the cycle that ran has ended where the next sleep began
      clock.advance(26 * 3_600_000)
      const end = Date.parse(byId().end)
      clock.set(new Date(end + 60_000).toISOString())
      const ended = byId()
      expect(["PENDING_SCORE", "UNSCORABLE"]).toContain(ended.score_state)
      expect(ended).toHaveProperty("score", null)
      clock.set(new Date(end + 31 * 60_000).toISOString())
      if (ended.score_state === "PENDING_SCORE") expect(byId().score_state).toBe("SCORED")
      const year = sim.control.records(userId, "cycle", { start: clock.ms - 365 * 86_400_000 }) as Array<any>
      const unscorable = year.filter((c) => c.score_state === "UNSCORABLE")
      expect(unscorable.length).toBeGreaterThan(0)
      expect(unscorable.every((c) => c.score === null && typeof c.end === "string")).toBe(true)
      expect(year.filter((c) => c.score_state === "SCORED").every((c) => typeof c.score.strain === "number")).toBe(
        true
      )
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("cycles start in the evening before local midnight, with their non-nap sleep; records carry v1_id null", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const userId = (yield* get(`${base}/developer/v2/user/profile/basic`, bearer(tokens.access))).json().user_id
      const since = Date.parse("2025-05-01T00:00:00.000Z")
      const cycles = sim.control.records(userId, "cycle", { start: since }) as Array<any>
      const sleeps = sim.control.records(userId, "sleep", { start: since }) as Array<any>
      const local = (iso: string, offset: string) => {
        const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset)!
        const minutes = (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))
        return new Date(Date.parse(iso) + minutes * 60_000).toISOString()
      }
      for (const cycle of cycles) {
        const hour = Number(local(cycle.start, cycle.timezone_offset).slice(11, 13))
        expect(hour === 22 || hour === 23).toBe(true)
        const opening = sleeps.find((s) => s.cycle_id === cycle.id && !s.nap)
        if (opening !== undefined) {
          expect(opening.start).toBe(cycle.start)
          // the member wakes into the next local date
          expect(
            local(opening.end, cycle.timezone_offset).slice(0, 10) >
              local(cycle.start, cycle.timezone_offset).slice(0, 10)
          )
            .toBe(true)
        }
      }
      expect(sleeps.every((s) => s.v1_id === null)).toBe(true)
      const workouts = sim.control.records(userId, "workout", { start: since }) as Array<any>
      expect(workouts.length).toBeGreaterThan(0)
      expect(workouts.every((w) => w.v1_id === null)).toBe(true)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the malformed-records knob serves one day's records of a kind malformed, in pages and by id", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const auth = bearer(tokens.access)
      const userId = (yield* get(`${base}/developer/v2/user/profile/basic`, auth)).json().user_id
      const knob = yield* send("POST", `${base}/_sim/malformed-records`, {
        json: { userId, kind: "cycle", daysAgo: 2 }
      })
      expect(knob.status).toBe(204)
      const cycles = (yield* get(`${base}/developer/v2/cycle?limit=5`, auth)).json().records as Array<any>
      const bad = cycles.filter((c) => c.start === "not a date-time")
      expect(bad).toHaveLength(1)
      expect((yield* get(`${base}/developer/v2/cycle/${bad[0].id}`, auth)).json().start).toBe("not a date-time")
      sim.control.mendRecords()
      expect((yield* get(`${base}/developer/v2/cycle/${bad[0].id}`, auth)).json().start).toMatch(/^\d{4}-/)
      const refused = yield* send("POST", `${base}/_sim/malformed-records`, {
        json: { kind: "cycle" }
      })
      expect(refused.status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("next_token is padded base64, and only a token passed back exactly is accepted", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const auth = bearer(tokens.access)
      const pages = yield* collect(base, tokens.access, "cycle", { start: "2025-01-01T00:00:00.000Z", limit: "2" })
      const issued = pages.map((p) => p.next_token).filter((t): t is string => t !== undefined)
      expect(issued.length).toBeGreaterThan(50)
      expect(issued.every((t) => /^[A-Za-z0-9+/]+={0,2}$/.test(t) && t.length % 4 === 0)).toBe(true)
      expect(issued.some((t) => t.endsWith("="))).toBe(true)
      const token = issued.find((t) => t.endsWith("="))!
      const exact = yield* get(`${base}/developer/v2/cycle?${new URLSearchParams({ nextToken: token })}`, auth)
      expect(exact.status).toBe(200)
      // padding dropped, or sent unencoded so that `+` reads as a space: refused
      const unpadded = yield* get(`${base}/developer/v2/cycle?nextToken=${token.replace(/=+$/, "")}`, auth)
      expect(unpadded.status).toBe(400)
      const withPlus = issued.find((t) => t.includes("+"))
      if (withPlus !== undefined) {
        expect((yield* get(`${base}/developer/v2/cycle?nextToken=${withPlus}`, auth)).status).toBe(400)
      }
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a sleep is pending for a while after waking, then scored", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base, sim } = yield* served("WHOOP", clock)
      const tokens = yield* whoopConnect(base)
      const userId = (yield* get(`${base}/developer/v2/user/profile/basic`, bearer(tokens.access))).json().user_id
      const latest = sim.control.latest(userId, "sleep") as any
      // move to just after that sleep's end: pending; half an hour later: scored
      clock.set(new Date(Date.parse(latest.end) + 60_000).toISOString())
      const pending = (yield* get(`${base}/developer/v2/activity/sleep/${latest.id}`, bearer(tokens.access))).json()
      expect(pending.score_state).toBe("PENDING_SCORE")
      expect(pending.score).toBeUndefined()
      clock.advance(30 * 60_000)
      const scored = (yield* get(`${base}/developer/v2/activity/sleep/${latest.id}`, bearer(tokens.access))).json()
      expect(scored.score_state).toBe("SCORED")
      const stages = scored.score.stage_summary
      expect(
        stages.total_awake_time_milli + stages.total_light_sleep_time_milli + stages.total_slow_wave_sleep_time_milli +
          stages.total_rem_sleep_time_milli
      ).toBe(stages.total_in_bed_time_milli)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("by-id routes find cycles, their sleep and recovery, sleeps and workouts, and 404 otherwise", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base)
      const auth = bearer(tokens.access)
      const [, cycle] = (yield* get(`${base}/developer/v2/cycle?limit=2`, auth)).json().records
      expect((yield* get(`${base}/developer/v2/cycle/${cycle.id}`, auth)).json()).toEqual(cycle)
      const recovery = (yield* get(`${base}/developer/v2/cycle/${cycle.id}/recovery`, auth)).json()
      expect(recovery.cycle_id).toBe(cycle.id)
      const sleep = (yield* get(`${base}/developer/v2/cycle/${cycle.id}/sleep`, auth)).json()
      expect(sleep.id).toBe(recovery.sleep_id)
      expect(sleep.nap).toBe(false)
      expect((yield* get(`${base}/developer/v2/activity/sleep/${sleep.id}`, auth)).json()).toEqual(sleep)
      const workouts = (yield* get(`${base}/developer/v2/activity/workout?limit=5`, auth)).json().records
      expect(workouts.length).toBeGreaterThan(0)
      expect((yield* get(`${base}/developer/v2/activity/workout/${workouts[0].id}`, auth)).json()).toEqual(workouts[0])
      expect((yield* get(`${base}/developer/v2/cycle/123`, auth)).status).toBe(404)
      expect((yield* get(`${base}/developer/v2/activity/sleep/${workouts[0].id}`, auth)).status).toBe(404)
      expect((yield* get(`${base}/developer/v2/activity/workout/00000000-0000-4000-8000-000000000000`, auth)).status)
        .toBe(
          404
        )
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("data is deterministic per user and differs between users", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const alice = yield* whoopConnect(base, "alice")
      const bob = yield* whoopConnect(base, "bob")
      const url = `${base}/developer/v2/recovery?start=2025-06-01T00:00:00.000Z&end=2025-06-10T00:00:00.000Z`
      const one = yield* get(url, bearer(alice.access))
      expect((yield* get(url, bearer(alice.access))).text).toBe(one.text)
      expect((yield* get(url, bearer(bob.access))).text).not.toBe(one.text)
      const profile = (yield* get(`${base}/developer/v2/user/profile/basic`, bearer(alice.access))).json()
      expect(profile).toEqual({
        user_id: expect.any(Number),
        email: "alice@sandbox.example",
        first_name: "Alice",
        last_name: "User"
      })
      const body = (yield* get(`${base}/developer/v2/user/measurement/body`, bearer(alice.access))).json()
      expect(body.height_meter).toBeGreaterThan(1.5)
      expect(body.weight_kilogram).toBeGreaterThan(50)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a missing scope answers 401 for that collection", () =>
    Effect.gen(function*() {
      const { base } = yield* served("WHOOP", new ManualClock())
      const tokens = yield* whoopConnect(base, "sandbox-user", { scope: "read:cycles" })
      expect((yield* get(`${base}/developer/v2/cycle`, bearer(tokens.access))).status).toBe(200)
      const sleep = yield* get(`${base}/developer/v2/activity/sleep`, bearer(tokens.access))
      expect(sleep.status).toBe(401)
      expect(sleep.json().error).toBe("insufficient_scope")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("100 requests per minute per client, with X-RateLimit headers, then 429", () =>
    Effect.gen(function*() {
      const clock = new ManualClock("2025-06-15T12:00:10.000Z")
      const { base } = yield* served("WHOOP", clock)
      const a = yield* whoopConnect(base, "alice")
      const b = yield* whoopConnect(base, "bob")
      const first = yield* get(`${base}/developer/v2/user/profile/basic`, bearer(a.access))
      expect(first.headers["x-ratelimit-limit"]).toBe("100, 100;window=60, 10000;window=86400")
      expect(first.headers["x-ratelimit-remaining"]).toBe("99")
      expect(first.headers["x-ratelimit-reset"]).toBe("50")
      for (let i = 1; i < 100; i++) {
        const who = i % 2 === 0 ? a : b
        expect((yield* get(`${base}/developer/v2/user/profile/basic`, bearer(who.access))).status).toBe(200)
      }
      const limited = yield* get(`${base}/developer/v2/user/profile/basic`, bearer(b.access))
      expect(limited.status).toBe(429)
      expect(limited.headers["x-ratelimit-remaining"]).toBe("0")
      clock.advance(50_000)
      expect((yield* get(`${base}/developer/v2/user/profile/basic`, bearer(a.access))).status).toBe(200)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("webhooks carry the v2 body and an HMAC-SHA256 signature over timestamp and body", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base, sim } = yield* served("WHOOP", clock)
      const tokens = yield* whoopConnect(base)
      const userId = (yield* get(`${base}/developer/v2/user/profile/basic`, bearer(tokens.access))).json().user_id
      const sleep = sim.control.latest(userId, "sleep") as any
      const hook = yield* receiver()
      const delivery = yield* sim.control.sendWebhook(hook.url, { userId, type: "recovery.updated", id: sleep.id })
      expect(delivery?.status).toBe(204)
      const received = hook.received[0]!
      expect(JSON.parse(received.body)).toEqual({
        user_id: userId,
        id: sleep.id,
        type: "recovery.updated",
        trace_id: expect.stringMatching(/^[0-9a-f-]{36}$/)
      })
      const timestamp = received.headers["x-whoop-signature-timestamp"]!
      expect(timestamp).toBe(String(clock.ms))
      expect(received.headers["x-whoop-signature"]).toBe(whoopSignature(CLIENT.clientSecret, timestamp, received.body))
    }).pipe(Effect.provide(HttpLive)))
})
