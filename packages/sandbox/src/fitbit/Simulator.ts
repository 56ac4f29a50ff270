/**
 * The Fitbit Web API simulator (legacy API, as in the provider reference §2): consent page and
 * OAuth 2.0 with Basic client auth and PKCE S256, rotating single-use refresh tokens with
 * Fitbit's short identical-replay window, revoke, profile, the daily activity summary in the
 * unit system of `Accept-Language`, per-user hourly rate limits, subscriptions, and helpers
 * that deliver signed notifications and subscriber verification requests.
 *
 * Paths under B: `GET|POST /oauth2/authorize`, `POST /oauth2/token`, `POST /oauth2/revoke`,
 * `GET /1/user/{-|id}/profile.json`, `GET /1/user/{-|id}/activities/date/{yyyy-MM-dd|today}.json`,
 * `POST|DELETE /1/user/{-|id}[/{collection}]/apiSubscriptions/{id}.json`,
 * `GET /1/user/{-|id}[/{collection}]/apiSubscriptions.json`.
 *
 * This module assembles the simulator (routes and control); its pieces live beside it:
 * Shapes.ts (types, limits, errors), Data.ts (synthetic records), OAuth.ts, Api.ts and Webhooks.ts.
 */
import { HttpRouter } from "@effect/platform"
import { assemble } from "../core/App.js"
import { expireAll, freshOAuth2State, listUsers } from "../core/OAuth2.js"
import type { Simulator, SimulatorOptions } from "../core/Options.js"
import { handle } from "../core/Request.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { makeFitbitApi, subscriptionBody } from "./Api.js"
import { makeFitbitOAuth } from "./OAuth.js"
import type { FitbitControl, FitbitState } from "./Shapes.js"
import { style } from "./Shapes.js"
import { makeFitbitWebhooks } from "./Webhooks.js"

export type FitbitSimulator = Simulator<FitbitControl>

export const makeFitbitSimulator = (options: SimulatorOptions): FitbitSimulator => {
  const core = new SimulatorCore<FitbitState>("Fitbit", "fitbit", options, () => ({
    ...freshOAuth2State(),
    subscriptions: []
  }))
  const replays = new Map<string, { until: number; accessKey: string; refreshKey: string; body: unknown }>()
  const { authorizePage, revoke, revokeUserFor, token } = makeFitbitOAuth(core, replays)
  const { daily, listSubscriptions, profile, subscription } = makeFitbitApi(core)

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth2/authorize", handle(authorizePage)),
    HttpRouter.post("/oauth2/authorize", handle(authorizePage)),
    HttpRouter.post("/oauth2/token", handle(token)),
    HttpRouter.post("/oauth2/revoke", handle(revoke)),
    HttpRouter.get("/1/user/:userId/profile.json", handle(profile)),
    HttpRouter.get("/1/user/:userId/activities/date/:file", handle(daily)),
    HttpRouter.get("/1/user/:userId/apiSubscriptions.json", handle(listSubscriptions)),
    HttpRouter.get("/1/user/:userId/:collection/apiSubscriptions.json", handle(listSubscriptions)),
    HttpRouter.post("/1/user/:userId/apiSubscriptions/:file", handle(subscription)),
    HttpRouter.del("/1/user/:userId/apiSubscriptions/:file", handle(subscription)),
    HttpRouter.post("/1/user/:userId/:collection/apiSubscriptions/:file", handle(subscription)),
    HttpRouter.del("/1/user/:userId/:collection/apiSubscriptions/:file", handle(subscription))
  )

  const control: FitbitControl = {
    ...baseControl(core, {
      resetGrants: () => {
        replays.clear()
        core.cell.reset()
      },
      expireAccessTokens: () => {
        expireAll(core.state, core.nowMs())
        core.commit()
      },
      revokeUser: (userId) => {
        revokeUserFor(core.state, (r) => r.userId === userId)
        core.commit()
      },
      users: () => listUsers(core.state)
    }),
    ...makeFitbitWebhooks(core),
    subscriptions: (clientId) =>
      core.state.subscriptions.filter((sub) => clientId === undefined || sub.clientId === clientId).map(
        subscriptionBody
      )
  }

  return assemble(core, style, routes, control)
}
