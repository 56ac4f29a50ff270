/**
 * The Garmin Health API simulator with OAuth 1.0a and OAuth 2.0 (provider reference §3): request
 * token, consent page (`oauthConfirm`), access token with verifier, every signed request's
 * HMAC-SHA1 signature and nonce checked; OAuth 2.0 with PKCE (`oauth2Confirm`, the
 * `di-oauth2-service` token endpoint with refresh) and the token exchange that moves an OAuth 1.0a
 * user to OAuth 2.0; user id, permissions, deregistration, dailies pull by upload window or by a
 * ping's pull token, backfill; and helpers delivering push, ping, backfill, permission-change and
 * deregistration notifications (header `garmin-client-id`, no signature, as Garmin does).
 *
 * Paths under B: `POST /oauth-service/oauth/request_token`, `GET|POST /oauthConfirm`,
 * `POST /oauth-service/oauth/access_token`, `GET|POST /oauth2Confirm`,
 * `POST /di-oauth2-service/oauth/token`, `POST /partner-gateway/rest/user/token-exchange`,
 * `GET /wellness-api/rest/user/id`, `GET /wellness-api/rest/user/permissions`,
 * `DELETE /wellness-api/rest/user/registration`, `GET /wellness-api/rest/{dailies, sleeps,
 * activities, hrv, pulseOx, bodyComps}`, `GET /wellness-api/rest/backfill/{type}`.
 *
 * Choices where Garmin is undocumented: denial redirects to the callback with `oauth_token`
 * and `oauth_problem=user_refused`; without any callback (`oob`) the page shows the verifier;
 * request tokens live 10 minutes; a wrong verifier leaves the request token usable; there is no
 * clock-skew check on `oauth_timestamp` (the simulator clock may be virtual) but a reused
 * (consumer key, timestamp, nonce) is refused; backfill needs `HISTORICAL_DATA_EXPORT`
 * (412 otherwise), which the consent forms leave unticked, as Garmin's do; an app's OAuth 2.0
 * client id and secret are its consumer key and secret; the token exchange leaves the OAuth 1.0a
 * token valid (Garmin keeps them working until the retirement).
 *
 * This module assembles the simulator (routes and control); its pieces live beside it:
 * Shapes.ts (types, limits, errors), Data.ts (synthetic dailies), Summaries.ts (synthetic sleeps,
 * activities, HRV, pulse ox and body compositions), OAuth.ts, Registrations.ts, Api.ts and Webhooks.ts.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Response from "@effect/platform/HttpServerResponse"
import { assemble } from "../core/App.js"
import { expireAll, freshOAuth2State } from "../core/OAuth2.js"
import type { Simulator, SimulatorOptions } from "../core/Options.js"
import { handle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { makeGarminApi } from "./Api.js"
import { makeGarminDays } from "./Data.js"
import { makeGarminOAuth } from "./OAuth.js"
import { makeGarminOAuth2 } from "./OAuth2.js"
import { makeGarminRegistrations } from "./Registrations.js"
import type { GarminControl, GarminState } from "./Shapes.js"
import { oauth2State, style } from "./Shapes.js"
import { makeGarminWebhooks } from "./Webhooks.js"

export type GarminSimulator = Simulator<GarminControl>

export const makeGarminSimulator = (options: SimulatorOptions): GarminSimulator => {
  const core = new SimulatorCore<GarminState>("Garmin", "garmin", options, () => ({
    users: {},
    requestTokens: {},
    uats: {},
    registrations: {},
    pendingBackfills: [],
    backfillKeys: [],
    o2: freshOAuth2State(),
    pullTokens: {}
  }))
  const nonces = new Set<string>()
  const days = makeGarminDays(core)
  const { accessToken, confirm, requestToken, verifySigned } = makeGarminOAuth(core, nonces)
  const { activeRegistration, deregister } = makeGarminRegistrations(core)
  const { api, backfill, dailiesPull, summaryPull } = makeGarminApi(core, verifySigned, days)
  const oauth2 = makeGarminOAuth2(core, verifySigned)

  const routes = HttpRouter.empty.pipe(
    HttpRouter.post("/oauth-service/oauth/request_token", handle(requestToken)),
    HttpRouter.get("/oauthConfirm", handle(confirm)),
    HttpRouter.post("/oauthConfirm", handle(confirm)),
    HttpRouter.post("/oauth-service/oauth/access_token", handle(accessToken)),
    HttpRouter.get("/oauth2Confirm", handle(oauth2.authorizePage)),
    HttpRouter.post("/oauth2Confirm", handle(oauth2.authorizePage)),
    HttpRouter.post("/di-oauth2-service/oauth/token", handle(oauth2.token)),
    HttpRouter.post("/partner-gateway/rest/user/token-exchange", handle(oauth2.tokenExchange)),
    HttpRouter.get(
      "/wellness-api/rest/user/id",
      handle((req) => api(req, (who) => json({ userId: who.userId })))
    ),
    HttpRouter.get(
      "/wellness-api/rest/user/permissions",
      handle((req) => api(req, (_who, registration) => json(registration.permissions)))
    ),
    HttpRouter.del(
      "/wellness-api/rest/user/registration",
      handle((req) =>
        api(req, (who, registration) => {
          deregister(registration.consumerKey, who.userId)
          return Response.empty({ status: 204 })
        })
      )
    ),
    HttpRouter.get("/wellness-api/rest/dailies", handle(dailiesPull)),
    HttpRouter.get("/wellness-api/rest/sleeps", handle(summaryPull("sleeps"))),
    HttpRouter.get("/wellness-api/rest/activities", handle(summaryPull("activities"))),
    HttpRouter.get("/wellness-api/rest/hrv", handle(summaryPull("hrv"))),
    HttpRouter.get("/wellness-api/rest/pulseOx", handle(summaryPull("pulseox"))),
    HttpRouter.get("/wellness-api/rest/bodyComps", handle(summaryPull("bodyComps"))),
    HttpRouter.get("/wellness-api/rest/backfill/:type", handle(backfill))
  )

  const control: GarminControl = {
    ...baseControl(core, {
      resetGrants: () => {
        nonces.clear()
        core.cell.reset()
      },
      // OAuth 1.0a user access tokens do not expire; OAuth 2.0 ones do
      expireAccessTokens: () => expireAll(oauth2State(core.state), core.nowMs()),
      revokeUser: (userId) => deregister(undefined, userId),
      users: () => Object.entries(core.state.users).map(([userId, u]) => ({ userId, name: u.name }))
    }),
    ...makeGarminWebhooks(core, days, activeRegistration),
    pendingBackfills: () =>
      core.state.pendingBackfills.map((b) => ({
        clientId: b.consumerKey,
        userId: b.userId,
        start: b.start,
        end: b.end,
        summaryType: b.summaryType ?? "dailies"
      })),
    dailies: (userId, dates) => days.dailiesFor(userId, dates)
  }

  return assemble(core, style, routes, control)
}
