/**
 * Withings data against the served simulator: a window reads measures, daily activity, workouts and sleep
 * following `more`/`offset` to the end (api-reference: "When a first call returns more:true and offset:XX, set
 * value XX in this parameter to retrieve next available rows"), only what was granted, a 601 as a rate limit; and
 * the notification path ("Keep user's data up to date", "Notification categories"): subscriptions after the
 * backfill to a public callback URL, the HEAD/GET check answered 200, a form-posted notification read back as its
 * category over its range, an unlink as a withdrawal.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { WebhookApp } from "@pulsebridge/providers"
import { batchSize } from "@pulsebridge/providers"
import {
  isWithingsCallbackUrl,
  WithingsData,
  withingsDefaultEndpoints,
  WithingsPlugin,
  withingsSubscribe,
  withingsWebhooks
} from "@pulsebridge/providers/withings/index"
import { serveHttpApp } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { withHttp } from "../fixtures/Simulated.js"
import { connectWithings } from "./Simulated.js"

const window = { from: "2025-05-01", to: "2025-05-30" }

const app: WebhookApp = { clientId: "pulsebridge-data", clientSecret: Redacted.make("x"), verificationCode: null }

const post = (body: string) =>
  withingsWebhooks(
    {
      method: "POST",
      query: new URLSearchParams(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body
    },
    app,
    0
  )

describe("WithingsData", () => {
  it.scopedLive("reads every page of every service of a window, as the simulator serves them", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connectWithings()
      const batch = yield* WithingsData.fetchWindow(input(), window)
      expect(batch.quarantined).toEqual([])
      const served = (kind: "activity" | "workouts" | "sleep") =>
        sim.control.records(providerUserId, kind, kind === "sleep" ? { from: "2025-04-30", to: "2025-05-31" } : window)
      expect(batch.dailyActivity.map((d) => d.date)).toEqual(served("activity").map((a) => a["date"]))
      expect(batch.workouts.map((w) => w.providerRecordId)).toEqual(served("workouts").map((w) => String(w["id"])))
      expect(batch.sleep.map((s) => s.providerRecordId)).toEqual(served("sleep").map((s) => String(s["id"])))
      expect(batch.bodyMeasurements.length).toBeGreaterThan(10)
      for (const b of batch.bodyMeasurements) {
        expect(b.weightKilograms === null || (b.weightKilograms > 40 && b.weightKilograms < 130)).toBe(true)
      }
      // several pages of each service were asked for, each with the offset the last one gave
      for (const path of ["/measure", "/v2/measure", "/v2/sleep"]) {
        expect(sim.control.calls({ path }).length).toBeGreaterThan(2)
      }
      const offsets = sim.control.calls({ path: "/v2/sleep" }).map((c) => c.params["offset"])
      expect(offsets[0]).toBeUndefined()
      expect(offsets.slice(1).every((o) => o !== undefined && Number(o) > 0)).toBe(true)
      // a sleep is dated by the morning it ends, in the user's zone
      for (const s of batch.sleep) expect(s.date >= "2025-04-30" && s.date <= "2025-05-31").toBe(true)
    })))

  it.scopedLive("reads only what was granted", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connectWithings({ scopes: ["user.metrics"] })
      const batch = yield* WithingsData.fetchWindow(input(), window)
      expect(batch.bodyMeasurements.length).toBeGreaterThan(0)
      expect(batch.dailyActivity.length + batch.sleep.length + batch.workouts.length).toBe(0)
      expect(sim.control.calls({ path: "/v2/*" })).toEqual([])
    })))

  it.scopedLive("a 601 is a rate limit to wait out; an expired token is a 401 to refresh", () =>
    withHttp(Effect.gen(function*() {
      const { clock, input, sim } = yield* connectWithings()
      sim.control.injectFault({ path: "/measure", kind: "rateLimit" })
      const limited = yield* Effect.flip(WithingsData.fetchWindow(input(), window))
      expect(limited).toMatchObject({ status: 429, retryAfterSeconds: 60 })
      clock.ms += 10_800_000
      const expired = yield* Effect.flip(WithingsData.fetchWindow(input(), window))
      expect(expired).toMatchObject({ status: 401, code: "invalid_token" })
    })))

  it.scopedLive("subscribes the granted categories after the backfill when the callback URL is public", () =>
    withHttp(Effect.gen(function*() {
      const probed: Array<string> = []
      const { input, providerUserId, sim } = yield* connectWithings({
        probe: (url) => Effect.sync(() => (probed.push(url), true))
      })
      const after = WithingsPlugin.data.afterBackfill!
      // against Withings itself, a callback it would not accept (plain HTTP, loopback): nothing is subscribed (no
      // call is made at all), polling stays
      yield* after({
        ...input(),
        endpoints: withingsDefaultEndpoints,
        connectionId: "c1",
        webhookUrl: "http://localhost/webhooks/withings/app"
      })
      expect(isWithingsCallbackUrl("http://localhost/webhooks/withings/app")).toBe(false)
      expect(isWithingsCallbackUrl("https://pulsebridge.example.test:8443/webhooks/withings/app")).toBe(false)
      expect(sim.control.subscriptions(providerUserId)).toEqual([])
      const url = "https://pulsebridge.example.test/webhooks/withings/app-1"
      expect(isWithingsCallbackUrl(url)).toBe(true)
      yield* after({ ...input(), connectionId: "c1", webhookUrl: url })
      expect(sim.control.subscriptions(providerUserId).map((s) => s.appli).sort((a, b) => a - b)).toEqual([
        1,
        16,
        44,
        46
      ])
      expect(probed.every((p) => p === url)).toBe(true)
    })))

  it.scopedLive("a notification reads its category over its range", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connectWithings()
      const start = Date.parse("2025-05-10T00:00:00Z") / 1000
      const end = Date.parse("2025-05-17T00:00:00Z") / 1000
      const weight = post(`userid=${providerUserId}&appli=1&startdate=${start}&enddate=${end}`)
      expect(weight).toMatchObject({ _tag: "Accepted", status: 200 })
      const notification = (weight as { notifications: ReadonlyArray<{ notification: unknown }> }).notifications[0]!
      const outcome = yield* WithingsData.notify(input(), notification.notification)
      expect(outcome._tag).toBe("Store")
      const batch = (outcome as { batch: Parameters<typeof batchSize>[0] }).batch
      expect(batch.bodyMeasurements.length).toBeGreaterThan(0)
      expect(batchSize(batch)).toBe(batch.bodyMeasurements.length)
      for (const m of batch.bodyMeasurements) {
        expect(m.measuredAt!.getTime() / 1000).toBeGreaterThanOrEqual(start)
        expect(m.measuredAt!.getTime() / 1000).toBeLessThanOrEqual(end)
      }
      sim.control.clearCalls()
      const sleep = yield* WithingsData.notify(input(), {
        _tag: "WithingsChange",
        appli: 44,
        startdate: start,
        enddate: start + 30_000
      })
      expect((sleep as { batch: { sleep: ReadonlyArray<unknown> } }).batch.sleep.length).toBeGreaterThan(0)
      expect(sim.control.calls().map((c) => c.path)).toEqual(["/v2/sleep"])
      const bad = yield* Effect.flip(WithingsData.notify(input(), { _tag: "Nope" }))
      expect(bad.code).toBe("invalid_notification")
    })))
})

describe("withingsWebhooks", () => {
  it("answers Withings' check of the callback URL (a HEAD, routed as GET) with 200", () => {
    expect(withingsWebhooks({ method: "GET", query: new URLSearchParams(), headers: {}, body: "" }, app, 0)).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [],
      deregistrations: []
    })
  })

  it("reads the documented form fields, and acknowledges what it does not read", () => {
    // the payload example of the Notification categories page
    expect(post("foo=bar&userid=12345&appli=1&startdate=1530576000&enddate=1530698753")).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [{
        providerUserId: "12345",
        notification: { _tag: "WithingsChange", appli: 1, startdate: 1530576000, enddate: 1530698753 }
      }],
      deregistrations: []
    })
    expect(post("userid=12345&appli=16&date=2025-06-14")).toMatchObject({
      notifications: [{ notification: { appli: 16, date: "2025-06-14" } }]
    })
    expect(post("userid=12345&appli=50&startdate=1")).toMatchObject({ _tag: "Accepted", notifications: [] })
    expect(post("userid=12345&appli=46&action=unlink")).toMatchObject({ deregistrations: ["12345"] })
    expect(post("appli=1")).toMatchObject({ _tag: "Rejected", status: 400 })
    expect(post("userid=abc&appli=1")).toMatchObject({ _tag: "Rejected", status: 400 })
  })

  it.scopedLive("receives what the simulator posts to a subscribed callback", () =>
    withHttp(Effect.gen(function*() {
      const received: Array<string> = []
      const hook = yield* serveHttpApp(Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* Effect.orElseSucceed(request.text, () => "")
        const result = withingsWebhooks(
          {
            method: request.method === "POST" ? "POST" : "GET",
            query: new URLSearchParams(),
            headers: request.headers,
            body
          },
          app,
          0
        )
        if (result._tag === "Accepted") received.push(...result.notifications.map((n) => JSON.stringify(n)))
        return HttpServerResponse.empty({
          status: result._tag === "Rejected" ? result.status : result._tag === "Accepted" ? result.status : 204
        })
      }))
      const { input, providerUserId, sim } = yield* connectWithings()
      yield* withingsSubscribe(input(), `${hook.baseUrl}/hook`)
      const deliveries = yield* sim.control.sendNotification(providerUserId, 44, {
        startdate: 1749945600,
        enddate: 1749974400
      })
      expect(deliveries.map((d) => d.status)).toEqual([200])
      expect(received.map((r) => JSON.parse(r))).toEqual([{
        providerUserId,
        notification: { _tag: "WithingsChange", appli: 44, startdate: 1749945600, enddate: 1749974400 }
      }])
    })))
})
