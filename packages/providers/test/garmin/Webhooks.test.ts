/**
 * Garmin's webhook receiver: the garmin-client-id header must be the consumer key (401), a
 * malformed body is 400, ping items become one pull each, pushed summaries one notification per
 * user, deregistrations are listed, and everything accepted is answered 200.
 */
import { describe, expect, it } from "@effect/vitest"
import { garminWebhooks } from "@pulsebridge/providers"
import { app, get, post } from "../fixtures/Webhook.js"

const now = Date.UTC(2024, 0, 31, 12)

const delivery = (body: unknown) => post(JSON.stringify(body), { "garmin-client-id": "client-id-123" })

const daily = (userId: string, summaryId: string) => ({ userId, summaryId, calendarDate: "2024-01-30", steps: 10 })

describe("garminWebhooks", () => {
  it("refuses a delivery without the app's consumer key in garmin-client-id with 401", () => {
    const body = JSON.stringify({ dailies: [] })
    const refused = { _tag: "Rejected", status: 401, message: "Missing or wrong garmin-client-id" }
    expect(garminWebhooks(post(body), app, now)).toEqual(refused)
    expect(garminWebhooks(post(body, { "garmin-client-id": "another-key" }), app, now)).toEqual(refused)
  })

  it("after a move to OAuth 2.0, accepts the client id and the kept OAuth 1.0a consumer key alike", () => {
    const moved = { ...app, clientId: "oauth2-client-id", otherClientIds: ["client-id-123"] }
    const body = JSON.stringify({ dailies: [] })
    expect(garminWebhooks(post(body, { "garmin-client-id": "client-id-123" }), moved, now)._tag).toBe("Accepted")
    expect(garminWebhooks(post(body, { "garmin-client-id": "oauth2-client-id" }), moved, now)._tag).toBe("Accepted")
    expect(garminWebhooks(post(body, { "garmin-client-id": "another-key" }), moved, now)._tag).toBe("Rejected")
  })

  it("groups pushed summaries by user: one notification per user, the envelope kept as JSON text", () => {
    const result = garminWebhooks(
      delivery({ dailies: [daily("u1", "s1"), daily("u2", "s2"), daily("u1", "s3")] }),
      app,
      now
    )
    expect(result).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [
        {
          providerUserId: "u1",
          notification: {
            _tag: "GarminPush",
            summariesJson: JSON.stringify({ dailies: [daily("u1", "s1"), daily("u1", "s3")] })
          }
        },
        {
          providerUserId: "u2",
          notification: { _tag: "GarminPush", summariesJson: JSON.stringify({ dailies: [daily("u2", "s2")] }) }
        }
      ],
      deregistrations: []
    })
  })

  it("groups a user's pushed summaries of every type read into one notification, ignoring types not read", () => {
    const sleep = { userId: "u1", summaryId: "n1", startTimeInSeconds: 1706569200, durationInSeconds: 28800 }
    const hrv = { userId: "u1", summaryId: "h1", calendarDate: "2024-01-30", lastNightAvg: 41 }
    const scale = { userId: "u2", summaryId: "b1", measurementTimeInSeconds: 1706600000, weightInGrams: 70100 }
    const callbackURL = "https://apis.garmin.com/wellness-api/rest/pulseOx?uploadStartTimeInSeconds=1&token=x"
    const result = garminWebhooks(
      delivery({
        sleeps: [sleep],
        hrv: [hrv],
        bodyComps: [scale],
        pulseox: [{ userId: "u1", callbackURL }],
        epochs: [{ userId: "u1", summaryId: "e1" }]
      }),
      app,
      now
    )
    expect(result).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [
        { providerUserId: "u1", notification: { _tag: "GarminPing", callbackUrl: callbackURL } },
        {
          providerUserId: "u1",
          notification: { _tag: "GarminPush", summariesJson: JSON.stringify({ sleeps: [sleep], hrv: [hrv] }) }
        },
        {
          providerUserId: "u2",
          notification: { _tag: "GarminPush", summariesJson: JSON.stringify({ bodyComps: [scale] }) }
        }
      ],
      deregistrations: []
    })
    expect(garminWebhooks(delivery({ sleeps: "x" }), app, now)).toMatchObject({ _tag: "Rejected", status: 400 })
  })

  it("turns each ping item into a pull of its callback URL, and skips items that name no user", () => {
    const callbackURL = "https://apis.garmin.com/wellness-api/rest/dailies?uploadStartTimeInSeconds=1&token=x"
    const result = garminWebhooks(
      delivery({ dailies: [{ userId: "u1", callbackURL }, { callbackURL }, 42, { userId: 7 }] }),
      app,
      now
    )
    expect(result).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [{ providerUserId: "u1", notification: { _tag: "GarminPing", callbackUrl: callbackURL } }],
      deregistrations: []
    })
  })

  it("lists deregistrations, pings before pushes", () => {
    const callbackURL = "https://apis.garmin.com/wellness-api/rest/dailies?x=1"
    const result = garminWebhooks(
      delivery({
        dailies: [daily("u1", "s1"), { userId: "u2", callbackURL }],
        deregistrations: [{ userId: "u3", userAccessToken: "t" }, { userId: "u4" }]
      }),
      app,
      now
    )
    expect(result).toMatchObject({
      _tag: "Accepted",
      status: 200,
      notifications: [
        { providerUserId: "u2", notification: { _tag: "GarminPing" } },
        { providerUserId: "u1", notification: { _tag: "GarminPush" } }
      ],
      deregistrations: ["u3", "u4"]
    })
    expect(garminWebhooks(delivery({ deregistrations: [{ userId: "u3" }] }), app, now)).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [],
      deregistrations: ["u3"]
    })
  })

  it("answers a malformed body 400, and a GET 404", () => {
    const malformed = { _tag: "Rejected", status: 400, message: "Malformed push body" }
    expect(garminWebhooks(post("not json", { "garmin-client-id": "client-id-123" }), app, now)).toEqual(malformed)
    expect(garminWebhooks(delivery({ dailies: "x" }), app, now)).toEqual(malformed)
    expect(garminWebhooks(delivery({ deregistrations: [{ id: 1 }] }), app, now)).toEqual(malformed)
    expect(garminWebhooks(get({}), app, now)).toMatchObject({ _tag: "Rejected", status: 404 })
  })

  it("reads a userPermissionsChange per user (Health API shape) and an OAuth 2.0 ping without access token", () => {
    const result = garminWebhooks(
      delivery({
        userPermissionsChange: [
          {
            userId: "u1",
            summaryId: "x120d383-60256e84",
            permissions: ["ACTIVITY_EXPORT", "WORKOUT_IMPORT", "HEALTH_EXPORT", "COURSE_IMPORT", "MCT_EXPORT"],
            changeTimeInSeconds: 1613065860
          },
          { summaryId: "no-user", permissions: [] }
        ],
        dailies: [{
          userId: "u2",
          uploadStartTimeInSeconds: 1711584000,
          uploadEndTimeInSeconds: 1711670400,
          callbackURL:
            "https://apis.garmin.com/wellness-api/rest/dailies?uploadStartTimeInSeconds=1711584000&uploadEndTimeInSeconds=1711670400&token=pull-token-123"
        }]
      }),
      app,
      now
    )
    expect(result).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [
        {
          providerUserId: "u2",
          notification: {
            _tag: "GarminPing",
            callbackUrl:
              "https://apis.garmin.com/wellness-api/rest/dailies?uploadStartTimeInSeconds=1711584000&uploadEndTimeInSeconds=1711670400&token=pull-token-123"
          }
        },
        {
          providerUserId: "u1",
          notification: {
            _tag: "GarminPermissions",
            permissions: ["ACTIVITY_EXPORT", "WORKOUT_IMPORT", "HEALTH_EXPORT", "COURSE_IMPORT", "MCT_EXPORT"],
            changeTimeInSeconds: 1613065860
          }
        }
      ],
      deregistrations: []
    })
  })
})
