/**
 * The Withings Public API simulator (developer.withings.com/api-reference), as strict as the live API: every
 * answer is HTTP 200 with the `{status, body}` envelope, codes are single use and live 30 seconds, refresh tokens
 * rotate, scopes are enforced, lists come in small pages with `more`/`offset`, and the app's 120 requests a minute
 * are counted across all its users (601 past them). Notifications are subscribed per user and category once the
 * callback URL answers a HEAD request, and sent as form posts.
 *
 * Paths under B: `GET|POST /oauth2_user/authorize2` (consent), `POST /v2/oauth2` (`requesttoken`, `revoke`),
 * `POST /v2/signature` (`getnonce`), `POST /measure` (`getmeas`), `POST /v2/measure` (`getactivity`,
 * `getworkouts`), `POST /v2/sleep` (`getsummary`), `POST /notify` (`subscribe`, `list`, `get`, `revoke`).
 *
 * Its pieces live beside it: Shapes.ts (state, limits, the envelope), Data.ts (records), OAuth.ts and Api.ts.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import { assemble } from "../core/App.js"
import type { Delivery } from "../core/Deliver.js"
import { expireAll, listUsers, revokeWhere } from "../core/OAuth2.js"
import type { Simulator, SimulatorOptions } from "../core/Options.js"
import { parseDay } from "../core/Random.js"
import { handle } from "../core/Request.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { headProbe, makeWithingsApi } from "./Api.js"
import { makeWithingsData } from "./Data.js"
import { makeWithingsOAuth } from "./OAuth.js"
import type { WithingsControl, WithingsState } from "./Shapes.js"
import { freshWithingsState, style } from "./Shapes.js"

export type WithingsSimulator = Simulator<WithingsControl>

export interface WithingsSimulatorOptions extends SimulatorOptions {
  /** How a callback URL is checked before a subscription (default: a HEAD request, as Withings sends). */
  readonly probe?: ((url: string) => Effect.Effect<boolean>) | undefined
}

export const makeWithingsSimulator = (options: WithingsSimulatorOptions): WithingsSimulator => {
  const core = new SimulatorCore<WithingsState>("Withings", "withings", options, freshWithingsState)
  const data = makeWithingsData(core.seed)
  const { authorizePage, oauth2, overLimit, signature } = makeWithingsOAuth(core)
  const { measure, measureV2, notify, sleepV2 } = makeWithingsApi(
    core,
    data,
    overLimit,
    options.probe ?? headProbe(options.httpClient)
  )

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth2_user/authorize2", handle(authorizePage)),
    HttpRouter.post("/oauth2_user/authorize2", handle(authorizePage)),
    HttpRouter.post("/v2/oauth2", handle(oauth2)),
    HttpRouter.post("/v2/signature", handle(signature)),
    HttpRouter.post("/measure", handle(measure)),
    HttpRouter.post("/v2/measure", handle(measureV2)),
    HttpRouter.post("/v2/sleep", handle(sleepV2)),
    HttpRouter.post("/notify", handle(notify))
  )

  const sendNotification: WithingsControl["sendNotification"] = (userId, appli, range, clientId) =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const targets = Object.values(core.state.subscriptions).filter((s) =>
        s.userId === userId && s.appli === appli && (clientId === undefined || s.clientId === clientId)
      )
      const deliveries: Array<Delivery> = []
      for (const target of targets) {
        const form: Record<string, string> = { userid: userId, appli: String(appli) }
        if (range.startdate !== undefined) form["startdate"] = String(range.startdate)
        if (range.enddate !== undefined) form["enddate"] = String(range.enddate)
        if (range.date !== undefined) form["date"] = range.date
        if (range.action !== undefined) form["action"] = range.action
        const response = yield* client.execute(
          HttpClientRequest.post(target.callbackurl).pipe(HttpClientRequest.bodyUrlParams(form))
        )
        deliveries.push({ url: target.callbackurl, status: response.status, body: yield* response.text })
      }
      return deliveries
    }).pipe(Effect.scoped)

  const control: WithingsControl = {
    ...baseControl(core, {
      resetGrants: () => core.cell.reset(),
      expireAccessTokens: () => {
        expireAll(core.state, core.nowMs())
        core.commit()
      },
      revokeUser: (userId) => {
        revokeWhere(core.state, (r) => r.userId === userId)
        for (const [key, s] of Object.entries(core.state.subscriptions)) {
          if (s.userId === userId) delete core.state.subscriptions[key]
        }
        core.commit()
      },
      users: () => listUsers(core.state)
    }),
    sendNotification,
    subscriptions: (userId) => Object.values(core.state.subscriptions).filter((s) => s.userId === userId),
    records: (userId, kind, range) => {
      const from = parseDay(range.from)
      const to = parseDay(range.to)
      if (from === undefined || to === undefined) return []
      const now = core.nowMs()
      if (kind !== "measures") return data.byDate(kind, userId, from, to, now).map((r) => r.body)
      const out: Array<Record<string, unknown>> = []
      for (let day = from; day <= to; day++) {
        out.push(...data.measureGroups(userId, day).filter((g) => g.atMs <= now).map((g) => g.body))
      }
      return out
    }
  }

  return assemble(core, style, routes, control)
}
