/**
 * The Google Health API simulator, which Fitbit's data comes through since the Fitbit Web API
 * was retired (2 Nov 2026). Mounted under the `fitbit` slug, one base B serves the three Google
 * hosts: the consent page (accounts.google.com), the token and revoke endpoints
 * (oauth2.googleapis.com) and the API (health.googleapis.com).
 *
 * Paths under B: `GET|POST /o/oauth2/v2/auth`, `POST /token`, `POST /revoke`,
 * `GET /v4/users/{me|id}/identity|settings|profile`,
 * `POST /v4/users/{me|id}/dataTypes/{dataType}/dataPoints:dailyRollUp`,
 * `GET /v4/users/{me|id}/dataTypes/{dataType}/dataPoints`; the retired Web API's
 * paths (`/1/...`, `/1.2/...`, `/oauth2/...`) answer 410 Gone as the real hosts do.
 *
 * This module assembles the simulator (routes and control); its pieces live beside it:
 * Shapes.ts (scopes, data types, limits, errors), Data.ts (synthetic days), Points.ts (synthetic
 * raw points), OAuth.ts, Api.ts, List.ts (the raw list) and Webhooks.ts (notifications out). docs/providers/fitbit.md lists the real behaviours it
 * reproduces.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { assemble } from "../core/App.js"
import { expireAll, freshOAuth2State, listUsers } from "../core/OAuth2.js"
import type { Simulator, SimulatorOptions } from "../core/Options.js"
import { handle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { makeFitbitApi } from "./Api.js"
import { makeFitbitOAuth } from "./OAuth.js"
import type { FitbitControl, FitbitState } from "./Shapes.js"
import { style } from "./Shapes.js"
import { makeFitbitWebhooks } from "./Webhooks.js"

export type FitbitSimulator = Simulator<FitbitControl>

/** What the retired Fitbit Web API answers since 2 Nov 2026. */
const gone = handle(() =>
  json({
    errors: [{ errorType: "gone", message: "The Fitbit Web API has been retired. Use the Google Health API." }],
    success: false
  }, 410)
)

export const makeFitbitSimulator = (options: SimulatorOptions): FitbitSimulator => {
  const core = new SimulatorCore<FitbitState>("Fitbit", "fitbit", options, () => ({
    ...freshOAuth2State(),
    offline: {},
    offlineCodes: {}
  }))
  const { authorizePage, revoke, revokeUserFor, token } = makeFitbitOAuth(core)
  const { dailyRollUp, listDataPoints, userResource } = makeFitbitApi(core)

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/o/oauth2/v2/auth", handle(authorizePage)),
    HttpRouter.post("/o/oauth2/v2/auth", handle(authorizePage)),
    HttpRouter.post("/token", handle(token)),
    HttpRouter.post("/revoke", handle(revoke)),
    HttpRouter.get(
      "/v4/users/*",
      handle((req) => req.path.endsWith("/dataPoints") ? listDataPoints(req) : userResource(req))
    ),
    HttpRouter.post("/v4/users/*", handle(dailyRollUp)),
    HttpRouter.all("/1/*", gone),
    HttpRouter.all("/1.2/*", gone),
    HttpRouter.all("/oauth2/*", gone)
  )

  const control: FitbitControl = {
    ...baseControl(core, {
      resetGrants: () => core.cell.reset(),
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
    ...makeFitbitWebhooks(options.clients[0]?.clientSecret)
  }

  return assemble(core, style, routes, control)
}
