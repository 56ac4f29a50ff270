/**
 * The Oura API v2 simulator (cloud.ouraring.com/v2/docs): OAuth 2.0 with single-use codes and refresh tokens,
 * the user collections `daily_activity`, `sleep`, `daily_sleep`, `daily_readiness`, `daily_spo2` and `workout`
 * (lists with `start_date`/`end_date` and `next_token`, and by id), `personal_info`, the per-user rate limits,
 * the app-level webhook subscription API with callback verification, and signed notifications. Every simulated
 * account has every collection, deterministic from the seed (Data.ts).
 *
 * Paths under B: `GET|POST /oauth/authorize`, `POST /oauth/token`, `GET|POST /oauth/revoke`,
 * `GET /v2/usercollection/{collection}`, `GET /v2/usercollection/{collection}/{id}`,
 * `GET /v2/usercollection/personal_info`, `GET|POST /v2/webhook/subscription`,
 * `GET|PUT|DELETE /v2/webhook/subscription/{id}`, `PUT /v2/webhook/subscription/renew/{id}`. Beside the common
 * `/_sim` routes, `POST|DELETE /_sim/malformed-records` (`OuraControl.malformRecords`).
 *
 * This module assembles the simulator; its pieces live beside it: Shapes.ts (types, limits, errors), Data.ts
 * (documents), OAuth.ts, Api.ts and Webhooks.ts.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Response from "@effect/platform/HttpServerResponse"
import { assemble } from "../core/App.js"
import { expireAll, listUsers, revokeWhere } from "../core/OAuth2.js"
import type { Simulator, SimulatorOptions } from "../core/Options.js"
import { parseDay } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { handle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { makeOuraApi } from "./Api.js"
import { makeOuraData } from "./Data.js"
import { makeOuraOAuth } from "./OAuth.js"
import type { OuraCollection, OuraControl, OuraState } from "./Shapes.js"
import { COLLECTION_NAMES, freshOuraState, style } from "./Shapes.js"
import { makeOuraWebhooks } from "./Webhooks.js"

export type OuraSimulator = Simulator<OuraControl>

/** A document made unreadable on purpose: a field Oura always sends right, wrong. */
const malformed = (kind: OuraCollection, body: Record<string, unknown>): Record<string, unknown> =>
  kind === "daily_activity" || kind === "daily_sleep" || kind === "daily_readiness" || kind === "daily_spo2"
    ? { ...body, day: "not a date" }
    : kind === "sleep"
    ? { ...body, bedtime_start: "not a date-time" }
    : { ...body, start_datetime: "not a date-time" }

export const makeOuraSimulator = (options: SimulatorOptions): OuraSimulator => {
  const core = new SimulatorCore<OuraState>("Oura", "oura", options, freshOuraState)
  const data = makeOuraData(core.seed)
  /** `userId:collection:day` of the documents served malformed. */
  const spoilt = new Set<string>()
  const served = (kind: OuraCollection, doc: { day: number; body: Record<string, unknown> }, userId: string) =>
    spoilt.has(`${userId}:${kind}:${doc.day}`) ? malformed(kind, doc.body) : doc.body
  const { authorizePage, revoke, token } = makeOuraOAuth(core)
  const api = makeOuraApi(core, data, served)
  const hooks = makeOuraWebhooks(core, data, options.httpClient)

  const malformRecords: OuraControl["malformRecords"] = (userId, collection, day) => {
    const parsed = parseDay(day)
    if (parsed === undefined) throw new Error(`not a date: ${day}`)
    spoilt.add(`${userId}:${collection}:${parsed}`)
  }

  const malformedRecords = (req: SimRequestShape) => {
    let body: any
    try {
      body = JSON.parse(req.body)
    } catch {
      body = undefined
    }
    if (
      typeof body !== "object" || body === null || typeof body.userId !== "string" ||
      !COLLECTION_NAMES.includes(body.collection) || typeof body.day !== "string" || parseDay(body.day) === undefined
    ) {
      return json({ error: "body must be {\"userId\", \"collection\", \"day\"}" }, 400)
    }
    malformRecords(body.userId, body.collection, body.day)
    return Response.empty({ status: 204 })
  }

  let routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth/authorize", handle(authorizePage)),
    HttpRouter.post("/oauth/authorize", handle(authorizePage)),
    HttpRouter.post("/oauth/token", handle(token)),
    HttpRouter.get("/oauth/revoke", handle(revoke)),
    HttpRouter.post("/oauth/revoke", handle(revoke)),
    HttpRouter.get("/v2/usercollection/personal_info", handle(api.personalInfo)),
    HttpRouter.get("/v2/webhook/subscription", handle(hooks.list)),
    HttpRouter.post("/v2/webhook/subscription", handle(hooks.create)),
    HttpRouter.put("/v2/webhook/subscription/renew/:id", handle(hooks.renew)),
    HttpRouter.get("/v2/webhook/subscription/:id", handle(hooks.read)),
    HttpRouter.put("/v2/webhook/subscription/:id", handle(hooks.update)),
    HttpRouter.del("/v2/webhook/subscription/:id", handle(hooks.remove))
  )
  for (const kind of COLLECTION_NAMES) {
    routes = routes.pipe(
      HttpRouter.get(`/v2/usercollection/${kind}`, handle(api.collection(kind))),
      HttpRouter.get(`/v2/usercollection/${kind}/:id`, handle(api.byId(kind)))
    )
  }

  const controlRoutes = HttpRouter.empty.pipe(
    HttpRouter.post("/_sim/malformed-records", handle(malformedRecords)),
    HttpRouter.del("/_sim/malformed-records", handle(() => (spoilt.clear(), Response.empty({ status: 204 }))))
  )

  const control: OuraControl = {
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
    notify: hooks.notify,
    subscriptions: hooks.subscriptions,
    expireSubscriptions: hooks.expireSubscriptions,
    documents: (userId, collection, from, to) => {
      const start = parseDay(from)
      const end = parseDay(to)
      if (start === undefined || end === undefined) return []
      const docs = []
      for (let day = start; day <= end; day++) {
        for (const doc of data.docsOf(userId, collection, day, core.nowMs())) docs.push(served(collection, doc, userId))
      }
      return docs
    },
    malformRecords,
    mendRecords: () => spoilt.clear()
  }

  return assemble(core, style, routes, control, controlRoutes)
}
