/**
 * The Google Health API notification receiver: the subscriber verification (201 with the
 * `Authorization` value, 401 without), notifications shaped as Google sends them (the `data`
 * envelope, alone or in a list) read into the days to read again, data types daily activity is
 * not made of left out, and anything unreadable or unauthorised refused.
 */
import { describe, expect, it } from "@effect/vitest"
import type { WebhookApp, WebhookRequest } from "@pulsebridge/providers"
import { fitbitWebhooks } from "@pulsebridge/providers"
import * as Redacted from "effect/Redacted"

const secret = "Bearer 8f2c1e-subscriber-secret"
const app: WebhookApp = { clientId: "client", clientSecret: Redacted.make("client-secret"), verificationCode: secret }
const now = Date.UTC(2026, 10, 20, 15)

const post = (body: string, headers: Record<string, string> = { authorization: secret }): WebhookRequest => ({
  method: "POST",
  query: new URLSearchParams(),
  headers: { "content-type": "application/json", ...headers },
  body
})

/** A notification as Google's webhook documentation and client libraries show it. */
const stepsChanged = {
  data: {
    version: "1",
    clientProvidedSubscriptionName: "pulsebridge",
    healthUserId: "2514986753",
    operation: "UPSERT",
    dataType: "steps",
    intervals: [{
      physicalTimeInterval: { startTime: "2026-11-19T05:00:00Z", endTime: "2026-11-20T05:00:00Z" },
      civilIso8601TimeInterval: { startTime: "2026-11-19T00:00:00", endTime: "2026-11-20T00:00:00" }
    }]
  }
}

describe("fitbitWebhooks (Google Health API)", () => {
  it("answers the verification with the Authorization value 201, and without it 401", () => {
    const body = JSON.stringify({ type: "verification" })
    expect(fitbitWebhooks(post(body), app, now)).toEqual({ _tag: "Verified", status: 201 })
    expect(fitbitWebhooks(post(body, {}), app, now)).toMatchObject({ _tag: "Rejected", status: 401 })
    expect(fitbitWebhooks(post(body, { authorization: "Bearer other" }), app, now)).toMatchObject({
      _tag: "Rejected",
      status: 401
    })
    expect(fitbitWebhooks(post(body), { ...app, verificationCode: null }, now)).toMatchObject({
      _tag: "Rejected",
      status: 401
    })
  })

  it("reads a notification into the civil days to read again; an end at midnight is the day before", () => {
    expect(fitbitWebhooks(post(JSON.stringify(stepsChanged)), app, now)).toEqual({
      _tag: "Accepted",
      status: 204,
      notifications: [{
        providerUserId: "2514986753",
        notification: { _tag: "GoogleHealthChange", dataType: "steps", from: "2026-11-19", to: "2026-11-19" }
      }],
      deregistrations: []
    })
  })

  it("takes a list of notifications; other data types and a DELETE of ours are handled, sleep is left out", () => {
    const list = [
      stepsChanged,
      { data: { ...stepsChanged.data, dataType: "sleep" } },
      {
        data: {
          ...stepsChanged.data,
          healthUserId: "77",
          dataType: "distance",
          operation: "DELETE",
          intervals: [{
            physicalTimeInterval: { startTime: "2026-11-17T22:00:00Z", endTime: "2026-11-18T01:30:00Z" },
            civilIso8601TimeInterval: { startTime: "2026-11-17T17:00:00", endTime: "2026-11-17T20:30:00" }
          }]
        }
      }
    ]
    const result = fitbitWebhooks(post(JSON.stringify(list)), app, now)
    expect(result._tag === "Accepted" && result.notifications).toEqual([
      {
        providerUserId: "2514986753",
        notification: { _tag: "GoogleHealthChange", dataType: "steps", from: "2026-11-19", to: "2026-11-19" }
      },
      {
        providerUserId: "77",
        notification: { _tag: "GoogleHealthChange", dataType: "distance", from: "2026-11-17", to: "2026-11-17" }
      }
    ])
  })

  it("without a civil interval, reads the physical one's UTC days and a day either side; without any, around now", () => {
    const physical = {
      data: {
        ...stepsChanged.data,
        intervals: [{ physicalTimeInterval: { startTime: "2026-11-19T05:00:00Z", endTime: "2026-11-19T06:00:00Z" } }]
      }
    }
    const none = { data: { ...stepsChanged.data, intervals: [] } }
    const read = (body: unknown) => {
      const result = fitbitWebhooks(post(JSON.stringify(body)), app, now)
      return result._tag === "Accepted" ? result.notifications.map((n) => n.notification) : result
    }
    expect(read(physical)).toEqual([{
      _tag: "GoogleHealthChange",
      dataType: "steps",
      from: "2026-11-18",
      to: "2026-11-20"
    }])
    expect(read(none)).toEqual([{
      _tag: "GoogleHealthChange",
      dataType: "steps",
      from: "2026-11-19",
      to: "2026-11-21"
    }])
  })

  it("refuses an unreadable body with 400 and a GET with 404, checking the Authorization first", () => {
    expect(fitbitWebhooks(post("{not json"), app, now)).toMatchObject({ _tag: "Rejected", status: 400 })
    expect(fitbitWebhooks(post(JSON.stringify({ data: { dataType: "steps" } })), app, now)).toMatchObject({
      _tag: "Rejected",
      status: 400
    })
    expect(fitbitWebhooks(post("{not json", {}), app, now)).toMatchObject({ _tag: "Rejected", status: 401 })
    expect(fitbitWebhooks({ ...post(""), method: "GET" }, app, now)).toMatchObject({ _tag: "Rejected", status: 404 })
  })
})
