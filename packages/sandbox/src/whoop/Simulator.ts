/**
 * The WHOOP Developer API v2 simulator (provider reference §4): an ORY-Hydra-like OAuth 2.0
 * server (body client credentials, `state` of at least 8 characters, refresh tokens only with
 * `offline`, rotation with reuse detection), revoke, profile and body measurement, the cycle,
 * recovery, sleep and workout collections (newest first, `limit` ≤ 25, `nextToken` →
 * `next_token`) and by-id routes, per-client rate limits, and a signed-webhook sender.
 *
 * Paths under B: `GET|POST /oauth/oauth2/auth`, `POST /oauth/oauth2/token`, and under
 * `/developer`: `DELETE /v2/user/access`, `GET /v2/user/profile/basic`,
 * `GET /v2/user/measurement/body`, `GET /v2/cycle`, `GET /v2/cycle/{id}`,
 * `GET /v2/cycle/{id}/recovery`, `GET /v2/cycle/{id}/sleep`, `GET /v2/recovery`,
 * `GET /v2/activity/sleep`, `GET /v2/activity/sleep/{uuid}`, `GET /v2/activity/workout`,
 * `GET /v2/activity/workout/{uuid}`. Beside the common `/_sim` routes, the fault knob
 * `POST|DELETE /_sim/malformed-records` (`WhoopControl.malformRecords`) serves one day's records
 * of a kind malformed.
 *
 * Model, as live v2 answers: a cycle runs from one sleep onset (in the evening, before local
 * midnight) to the next (WHOOP's definition), and its non-nap sleep starts with it; the running
 * cycle is `SCORED` with `"end": null` and the strain so far; a finished cycle is `PENDING_SCORE`
 * with `"score": null` for 30 minutes after it ends, and about one day in 30 is `UNSCORABLE` with
 * `"score": null`; sleeps, naps and recoveries are `PENDING_SCORE` for 30 minutes after waking,
 * workouts for 15 minutes after they end; sleeps and workouts carry `"v1_id": null`; `next_token`
 * is padded standard base64 and a token not passed back exactly is refused (400). Choices
 * where WHOOP is undocumented (Hydra behaviour assumed): refreshing revokes the previous access
 * token; presenting a spent refresh token revokes the whole grant; a missing scope answers 401
 * (the API declares no 403); `redirect_uri` schemes are not restricted.
 *
 * This module assembles the simulator (routes and control); its pieces live beside it:
 * Shapes.ts (types, limits, errors), Plan.ts and Data.ts (synthetic records), OAuth.ts, Api.ts and Webhooks.ts.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Response from "@effect/platform/HttpServerResponse"
import { assemble } from "../core/App.js"
import type { OAuth2State } from "../core/OAuth2.js"
import { expireAll, freshOAuth2State, listUsers, revokeWhere } from "../core/OAuth2.js"
import type { Simulator, SimulatorOptions } from "../core/Options.js"
import type { SimRequestShape } from "../core/Request.js"
import { handle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { makeWhoopApi } from "./Api.js"
import { makeWhoopData } from "./Data.js"
import { makeWhoopOAuth } from "./OAuth.js"
import type { WhoopControl } from "./Shapes.js"
import { style } from "./Shapes.js"
import { makeWhoopWebhooks } from "./Webhooks.js"

export type WhoopSimulator = Simulator<WhoopControl>

export const makeWhoopSimulator = (options: SimulatorOptions): WhoopSimulator => {
  const core = new SimulatorCore<OAuth2State>("WHOOP", "whoop", options, freshOAuth2State)
  const data = makeWhoopData(core)
  const { cycleRecord, malformRecords, mendRecords, page, recoveryRecord, sleepRecord } = data
  const { authorizePage, token } = makeWhoopOAuth(core)
  const { body, byCycle, byUuid, collection, profile, revoke } = makeWhoopApi(core, data)

  /** The fault knob of `WhoopControl.malformRecords`, over HTTP. */
  const malformedRecords = (req: SimRequestShape) => {
    let body: any
    try {
      body = JSON.parse(req.body)
    } catch {
      body = undefined
    }
    const kinds = ["cycle", "sleep", "recovery", "workout"]
    if (
      typeof body !== "object" || body === null || !Number.isInteger(Number(body.userId)) ||
      !kinds.includes(body.kind) || !Number.isInteger(body.daysAgo)
    ) {
      return json({ error: "body must be {\"userId\", \"kind\", \"daysAgo\"}" }, 400)
    }
    malformRecords(Number(body.userId), body.kind, body.daysAgo, core.nowMs())
    return Response.empty({ status: 204 })
  }

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth/oauth2/auth", handle(authorizePage)),
    HttpRouter.post("/oauth/oauth2/auth", handle(authorizePage)),
    HttpRouter.post("/oauth/oauth2/token", handle(token)),
    HttpRouter.del("/developer/v2/user/access", handle(revoke)),
    HttpRouter.get("/developer/v2/user/profile/basic", handle(profile)),
    HttpRouter.get("/developer/v2/user/measurement/body", handle(body)),
    HttpRouter.get("/developer/v2/cycle", handle(collection("cycle", "read:cycles"))),
    HttpRouter.get("/developer/v2/cycle/:id", handle(byCycle("read:cycles", cycleRecord, "Cycle"))),
    HttpRouter.get("/developer/v2/cycle/:id/recovery", handle(byCycle("read:recovery", recoveryRecord, "Recovery"))),
    HttpRouter.get(
      "/developer/v2/cycle/:id/sleep",
      handle(byCycle("read:sleep", (u, d, n) => sleepRecord(u, d, n, "sleep"), "Sleep"))
    ),
    HttpRouter.get("/developer/v2/recovery", handle(collection("recovery", "read:recovery"))),
    HttpRouter.get("/developer/v2/activity/sleep", handle(collection("sleep", "read:sleep"))),
    HttpRouter.get("/developer/v2/activity/sleep/:id", handle(byUuid("read:sleep", ["sleep", "nap"], "Sleep"))),
    HttpRouter.get("/developer/v2/activity/workout", handle(collection("workout", "read:workout"))),
    HttpRouter.get("/developer/v2/activity/workout/:id", handle(byUuid("read:workout", ["workout"], "Workout")))
  )

  const controlRoutes = HttpRouter.empty.pipe(
    HttpRouter.post("/_sim/malformed-records", handle(malformedRecords)),
    HttpRouter.del("/_sim/malformed-records", handle(() => (mendRecords(), Response.empty({ status: 204 }))))
  )

  const control: WhoopControl = {
    ...baseControl(core, {
      resetGrants: () => core.cell.reset(),
      expireAccessTokens: () => {
        expireAll(core.state, core.nowMs())
        core.commit()
      },
      revokeUser: (userId) => {
        revokeWhere(core.state, (r) => r.userId === userId)
        core.commit()
      },
      users: () => listUsers(core.state)
    }),
    ...makeWhoopWebhooks(core),
    malformRecords: (userId, kind, daysAgo) => malformRecords(userId, kind, daysAgo, core.nowMs()),
    mendRecords,
    latest: (userId, kind) => {
      const result = page(
        kind,
        userId,
        { startMs: undefined, endMs: core.nowMs(), cursor: undefined, limit: 1 },
        core.nowMs()
      )
      return result.records[0]
    },
    records: (userId, kind, range) =>
      page(
        kind,
        userId,
        {
          startMs: range?.start,
          endMs: range?.end ?? core.nowMs(),
          cursor: undefined,
          limit: Number.POSITIVE_INFINITY
        },
        core.nowMs()
      ).records
  }

  return assemble(core, style, routes, control, controlRoutes)
}
