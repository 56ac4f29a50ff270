/**
 * The simulator of Acme, a fictional fifth provider, built from the sandbox's shared core the way
 * each built-in simulator is: a consent page and a token endpoint (OAuth 2.0, client credentials
 * in the body, rotating refresh tokens), `GET /v1/me` and `GET /v1/daily?start_date&end_date`
 * (deterministic days up to today), and token revocation. Two kinds of account behave badly, as
 * real providers' accounts sometimes do: an account whose name starts with `odd` is sent one day
 * (two days ago) with a malformed `steps` until a test sets `acmeQuirks.oddDaysMended`; one whose name
 * starts with `retired` gets 410 Gone from the data endpoint (an API shut down under it).
 */
import type { HttpServerResponse } from "@effect/platform"
import { HttpRouter } from "@effect/platform"
import { assemble } from "@pulsebridge/sandbox/core/App"
import type { OAuth2State } from "@pulsebridge/sandbox/core/OAuth2"
import {
  authenticate,
  bodyClient,
  expireAll,
  freshOAuth2State,
  issueCode,
  issueTokens,
  listUsers,
  newGrantId,
  redeemCode,
  rememberUser,
  revokeWhere
} from "@pulsebridge/sandbox/core/OAuth2"
import type { Simulator, SimulatorControl, SimulatorOptions } from "@pulsebridge/sandbox/core/Options"
import { DAY_MS, formatDay, parseDay, Rng, sha256Hex, tokenKey } from "@pulsebridge/sandbox/core/Random"
import type { ProviderStyle, SimRequestShape } from "@pulsebridge/sandbox/core/Request"
import { handle } from "@pulsebridge/sandbox/core/Request"
import {
  consentPage,
  errorPage,
  isAbsoluteUrl,
  json,
  readConsent,
  redirectWith,
  selfUrl
} from "@pulsebridge/sandbox/core/Responses"
import { baseControl, SimulatorCore } from "@pulsebridge/sandbox/core/SimulatorCore"

const ACCESS_TTL_SECONDS = 3600

/** Switches a test turns to change how the simulator behaves (shared by every Acme simulator). */
export const acmeQuirks = { oddDaysMended: false }

const acmeError = (status: number, error: string, headers?: Record<string, string>) => json({ error }, status, headers)

const style: ProviderStyle = {
  error: (status, code) => acmeError(status, code),
  expiredToken: () => acmeError(401, "invalid_token"),
  rateLimited: (seconds) => acmeError(429, "rate_limited", { "retry-after": String(seconds) })
}

/** The provider's user id of a simulated account. */
export const acmeUserId = (name: string) => `acme-${sha256Hex("acme-user", name).slice(0, 16)}`

/** The day the simulator serves for a user: the same seed, user and day give the same values. */
export const acmeDay = (seed: string, userId: string, day: string) => {
  const rng = new Rng(seed, "acme-day", userId, day)
  return {
    day,
    steps: rng.int(2000, 16000),
    total_calories: rng.int(1800, 3200),
    meters: rng.int(1500, 12000),
    moderate_minutes: rng.int(0, 60),
    vigorous_minutes: rng.int(0, 30)
  }
}

export const makeAcmeSimulator = (options: SimulatorOptions): Simulator<SimulatorControl> => {
  const core = new SimulatorCore<OAuth2State>("Acme", "acme", options, freshOAuth2State)

  const authorize = (req: SimRequestShape) => {
    const clientId = req.query.get("client_id")
    if (!core.isClient(clientId)) return errorPage("Acme", "Invalid client_id")
    const redirectUri = req.query.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) return errorPage("Acme", "Missing or invalid redirect_uri")
    const state = req.query.get("state")
    if (req.method === "GET") {
      return consentPage({ providerName: "Acme", clientId, action: selfUrl(core, req), detail: "Scope: daily" })
    }
    const consent = readConsent(req.form, ["daily"])
    if (consent.decision === undefined) return errorPage("Acme", "decision must be approve or deny")
    if (consent.decision === "deny") return redirectWith(redirectUri, { error: "access_denied", state })
    const userId = acmeUserId(consent.user)
    rememberUser(core.state, userId, consent.user)
    const code = issueCode(core.state, {
      clientId,
      userId,
      redirectUri,
      scope: consent.granted.join(" "),
      challenge: null,
      expiresAt: core.nowMs() + 600_000
    })
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return acmeError(401, "invalid_client")
    }
    const clientId = client.id
    const now = core.nowMs()
    const issue = (userId: string, grantId: string, scope: string) => {
      const issued = issueTokens(
        core.state,
        { clientId, userId, scope, grantId },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      core.commit()
      req.identify({ clientId, userId })
      return json({
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        expires_in: ACCESS_TTL_SECONDS,
        token_type: "Bearer",
        scope
      })
    }
    switch (req.form.get("grant_type")) {
      case "authorization_code": {
        const record = redeemCode(core.state, req.form.get("code") ?? "", now)
        core.commit()
        if (typeof record === "string" || record.clientId !== clientId) return acmeError(400, "invalid_grant")
        if (req.form.get("redirect_uri") !== record.redirectUri) return acmeError(400, "invalid_grant")
        return issue(record.userId, newGrantId(), record.scope)
      }
      case "refresh_token": {
        const record = core.state.refresh[tokenKey(req.form.get("refresh_token") ?? "")]
        if (record === undefined || record.clientId !== clientId || record.usedAt !== null) {
          return acmeError(400, "invalid_grant")
        }
        record.usedAt = now
        return issue(record.userId, record.grantId, record.scope)
      }
      default:
        return acmeError(400, "unsupported_grant_type")
    }
  }

  const withUser = (req: SimRequestShape, f: (userId: string) => HttpServerResponse.HttpServerResponse) => {
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1]
    const auth = authenticate(core.state, bearer, core.nowMs())
    if (auth._tag !== "Ok") return acmeError(401, "invalid_token")
    req.identify({ clientId: auth.record.clientId, userId: auth.record.userId })
    return f(auth.record.userId)
  }

  const accountName = (userId: string) => core.state.users[userId]?.name ?? ""

  const daily = (req: SimRequestShape) =>
    withUser(req, (userId) => {
      const name = accountName(userId)
      if (name.startsWith("retired")) return acmeError(410, "api_retired")
      const start = parseDay(req.query.get("start_date") ?? "")
      const end = parseDay(req.query.get("end_date") ?? "")
      if (start === undefined || end === undefined || end < start) return acmeError(400, "invalid_request")
      const today = Math.floor(core.nowMs() / DAY_MS)
      const data: Array<unknown> = []
      for (let day = start; day <= Math.min(end, today); day++) {
        const served = acmeDay(core.seed, userId, formatDay(day))
        data.push(
          name.startsWith("odd") && !acmeQuirks.oddDaysMended && day === today - 2
            ? { ...served, steps: "many" }
            : served
        )
      }
      return json({ data })
    })

  const revoke = (req: SimRequestShape) => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return acmeError(401, "invalid_client")
    }
    // Revoking either token of a grant ends the whole grant, as RFC 7009 allows.
    const key = tokenKey(req.form.get("token") ?? "")
    const grant = core.state.access[key] ?? core.state.refresh[key]
    if (grant !== undefined) revokeWhere(core.state, (record) => record.grantId === grant.grantId)
    core.commit()
    return json({})
  }

  const routes = HttpRouter.empty.pipe(
    HttpRouter.get("/oauth/authorize", handle(authorize)),
    HttpRouter.post("/oauth/authorize", handle(authorize)),
    HttpRouter.post("/oauth/token", handle(token)),
    HttpRouter.post("/oauth/revoke", handle(revoke)),
    HttpRouter.get("/v1/me", handle((req) => withUser(req, (id) => json({ id })))),
    HttpRouter.get("/v1/daily", handle(daily))
  )

  const control = baseControl(core, {
    resetGrants: () => core.cell.reset(),
    expireAccessTokens: () => {
      expireAll(core.state, core.nowMs())
      core.commit()
    },
    revokeUser: (userId) => {
      revokeWhere(core.state, (record) => record.userId === userId)
      core.commit()
    },
    users: () => listUsers(core.state)
  })

  return assemble(core, style, routes, control)
}
