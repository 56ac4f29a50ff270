/**
 * The Dexcom Developer API simulator (API v3; OAuth on /v3/oauth2 and the older /v2/oauth2, both
 * answered as Dexcom does): login page with `scope=offline_access` only, token endpoint with body
 * client credentials, `expires_in` 7200 seconds and rotating refresh tokens, and the v3 `egvs`,
 * `events`, `calibrations`, `devices` and `dataRange` endpoints with their envelope, the 30-day
 * window rule and the retrospective delay. Dexcom has no revoke endpoint and no webhooks, so
 * neither does the simulator.
 *
 * Paths under B: `GET|POST /v3/oauth2/login`, `POST /v3/oauth2/token` (and the same under
 * `/v2/oauth2`), `GET /v3/users/self/{egvs|events|calibrations|devices|dataRange}`.
 *
 * Model: one EGV every 5 minutes (about 1% with a null value), a daily rhythm plus meal
 * excursions that start 10 minutes after each account's usual breakfast, lunch and dinner (within
 * 10 minutes of them each day; `Glucose.ts`); below 40 mg/dL the value is the sentinel 39 with `status` `low`, above 400 the
 * sentinel 401 with `status` `high`. Time stamps as the real API writes them: a receiver's
 * without any offset, an app's `systemTime` ending in `Z` and `displayTime` with the user's
 * offset, for some apps with seconds (`-05:00:00`). Records name `transmitterGenerationVariant`
 * and `displayApp` (`G6`, `G7`, `DexcomOne`, `D1G7`, `receiver`); a Dexcom ONE user has no events
 * and no calibrations (empty arrays). Carbs events at meals, insulin for some users, occasional
 * exercise, each with `recordedSystemTime`/`recordedDisplayTime` (when it was entered) and its
 * `value` as a string; sparse calibrations. Data appears one hour after its `systemTime` (the US
 * delay). Choices where Dexcom is undocumented: windows are `startDate` inclusive, `endDate`
 * exclusive; records come newest first; errors are `{"error","error_description"}`; codes live
 * 10 minutes; `SandboxUser7` has a G7, `SandboxUser1`–`6` a G6, other names either.
 *
 * This module assembles the simulator (routes and control); its pieces live beside it:
 * Shapes.ts (types, limits, errors), Glucose.ts and Data.ts (synthetic records), OAuth.ts and Api.ts.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { assemble } from "../core/App.js"
import type { OAuth2State } from "../core/OAuth2.js"
import { expireAll, freshOAuth2State, listUsers, revokeWhere } from "../core/OAuth2.js"
import type { Simulator, SimulatorControl, SimulatorOptions } from "../core/Options.js"
import { handle } from "../core/Request.js"
import { baseControl, SimulatorCore } from "../core/SimulatorCore.js"
import { makeDexcomApi } from "./Api.js"
import { makeDexcomOAuth } from "./OAuth.js"
import { style } from "./Shapes.js"

export type DexcomSimulator = Simulator<SimulatorControl>

export const makeDexcomSimulator = (options: SimulatorOptions): DexcomSimulator => {
  const core = new SimulatorCore<OAuth2State>("Dexcom", "dexcom", options, freshOAuth2State)
  const { loginPage, token } = makeDexcomOAuth(core)
  const { dataRange, devices, list } = makeDexcomApi(core)

  const routes = HttpRouter.empty.pipe(
    // the current specification's paths, and the older ones Dexcom still answers
    HttpRouter.get("/v3/oauth2/login", handle(loginPage)),
    HttpRouter.post("/v3/oauth2/login", handle(loginPage)),
    HttpRouter.post("/v3/oauth2/token", handle(token)),
    HttpRouter.get("/v2/oauth2/login", handle(loginPage)),
    HttpRouter.post("/v2/oauth2/login", handle(loginPage)),
    HttpRouter.post("/v2/oauth2/token", handle(token)),
    HttpRouter.get("/v3/users/self/egvs", handle(list("egv"))),
    HttpRouter.get("/v3/users/self/events", handle(list("event"))),
    HttpRouter.get("/v3/users/self/calibrations", handle(list("calibration"))),
    HttpRouter.get("/v3/users/self/devices", handle(devices)),
    HttpRouter.get("/v3/users/self/dataRange", handle(dataRange))
  )

  const control: SimulatorControl = baseControl(core, {
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
  })

  return assemble(core, style, routes, control)
}
