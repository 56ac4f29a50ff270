/**
 * The Fitbit simulator's OAuth 2.0: the consent page, the token endpoint with Basic client auth
 * and PKCE S256, one active refresh token per user and app, single-use refresh tokens with
 * Fitbit's identical-replay window, and revoke.
 */
import type { HttpServerResponse } from "@effect/platform"
import { parseBasic } from "../core/Credentials.js"
import {
  challengePattern,
  issueCode,
  issueTokens,
  newGrantId,
  pkceMatches,
  prune,
  redeemCode,
  rememberUser,
  revokeWhere
} from "../core/OAuth2.js"
import { providerUserIds, tokenKey } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { FitbitCore, FitbitState, RefreshReplays } from "./Shapes.js"
import { ACCESS_TTL_SECONDS, CODE_TTL_MS, FITBIT_SCOPES, fitbitError, REFRESH_REPLAY_MS } from "./Shapes.js"

export const makeFitbitOAuth = (core: FitbitCore, replays: RefreshReplays) => {
  const tokenResponse = (
    userId: string,
    issued: { accessToken: string; refreshToken: string | null; scope: string }
  ) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    refresh_token: issued.refreshToken,
    scope: issued.scope,
    token_type: "Bearer",
    user_id: userId
  })

  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (clientId === null || clientId === "") {
      return errorPage("Fitbit", "invalid_request - Missing parameters: client_id")
    }
    if (!core.isClient(clientId)) return errorPage("Fitbit", "unauthorized_client - Invalid client_id")
    const responseType = q.get("response_type")
    if (responseType === null) return errorPage("Fitbit", "invalid_request - Missing response_type parameter value")
    if (responseType !== "code") {
      return errorPage("Fitbit", "unsupported_response_type - Invalid response_type parameter value")
    }
    const redirectUri = q.get("redirect_uri")
    if (redirectUri === null || redirectUri === "") {
      return errorPage("Fitbit", "invalid_request - Missing redirect_uri parameter value")
    }
    if (!isAbsoluteUrl(redirectUri)) {
      return errorPage("Fitbit", "invalid_request - Invalid redirect_uri parameter value")
    }
    const scopeParam = q.get("scope")
    if (scopeParam === null || scopeParam.trim() === "") {
      return errorPage("Fitbit", "invalid_request - Missing parameters: scope")
    }
    const scopes = [...new Set(scopeParam.split(/[\s+]+/).filter((s) => s !== ""))]
    const unknown = scopes.filter((s) => !FITBIT_SCOPES.includes(s))
    if (unknown.length > 0) return errorPage("Fitbit", `invalid_scope - Invalid scope: ${unknown.join(" ")}`)
    const challenge = q.get("code_challenge")
    if (challenge !== null) {
      if (challenge.length < 43 || challenge.length > 128) {
        return errorPage("Fitbit", "invalid_request - The code_challenge parameter length must be between 43 and 128")
      }
      if (!challengePattern.test(challenge)) {
        return errorPage("Fitbit", "invalid_request - The code_challenge parameter is invalid")
      }
      if (q.get("code_challenge_method") !== "S256") {
        return errorPage("Fitbit", "invalid_request - Unsupported code_challenge_method")
      }
    }
    const state = q.get("state")
    if (req.method === "GET") {
      return consentPage({
        providerName: "Fitbit",
        clientId,
        action: selfUrl(core, req),
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) return errorPage("Fitbit", "invalid_request - decision must be approve or deny")
    if (consent.decision === "deny" || consent.granted.length === 0) {
      return redirectWith(redirectUri, {
        error: "access_denied",
        error_description: "The user denied the request",
        state
      })
    }
    const userId = providerUserIds.fitbit(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope: consent.granted.join(" "),
      challenge,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const clientAuth = (req: SimRequestShape) => {
    const basic = parseBasic(req.headers["authorization"])
    if (basic === undefined) {
      return fitbitError(401, "invalid_client", "Invalid authorization header format. Use Basic client credentials.")
    }
    if (core.clientSecret(basic.id) !== basic.secret) {
      return fitbitError(401, "invalid_client", `Invalid authorization header. Client id invalid: ${basic.id}`)
    }
    req.identify({ clientId: basic.id })
    return basic.id
  }

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const clientId = clientAuth(req)
    if (typeof clientId !== "string") return clientId
    const form = req.form
    const s = core.state
    const now = core.nowMs()
    const grantType = form.get("grant_type")
    if (grantType === "authorization_code") {
      const code = form.get("code")
      if (code === null || code === "") return fitbitError(400, "invalid_request", "Missing parameters: code")
      const record = redeemCode(s, code, now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return fitbitError(400, "invalid_grant", `Authorization code invalid: ${code}`)
      }
      if (record.redirectUri !== null && form.get("redirect_uri") !== record.redirectUri) {
        return fitbitError(400, "invalid_grant", "Invalid redirect_uri parameter value")
      }
      if (record.challenge !== null && !pkceMatches(record.challenge, form.get("code_verifier"))) {
        return fitbitError(400, "invalid_grant", "Code verifier is invalid")
      }
      // a user holds one active refresh token per app
      for (const [key, r] of Object.entries(s.refresh)) {
        if (r.clientId === clientId && r.userId === record.userId) delete s.refresh[key]
      }
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      core.commit()
      req.identify({ userId: record.userId })
      return json(tokenResponse(record.userId, issued))
    }
    if (grantType === "refresh_token") {
      const refreshToken = form.get("refresh_token")
      if (refreshToken === null || refreshToken === "") {
        return fitbitError(400, "invalid_request", "Missing parameters: refresh_token")
      }
      const key = tokenKey(refreshToken)
      const record = s.refresh[key]
      if (record === undefined || record.clientId !== clientId) {
        return fitbitError(400, "invalid_grant", `Refresh token invalid: ${refreshToken}`)
      }
      req.identify({ userId: record.userId })
      if (record.usedAt !== null) {
        const replay = replays.get(key)
        const fresh = replay !== undefined && now < replay.until &&
          s.access[replay.accessKey]?.usedAt === null && s.refresh[replay.refreshKey]?.usedAt === null
        if (fresh) return json(replay.body)
        return fitbitError(400, "invalid_grant", `Refresh token invalid: ${refreshToken}`)
      }
      record.usedAt = now
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      const body = tokenResponse(record.userId, issued)
      replays.set(key, {
        until: now + REFRESH_REPLAY_MS,
        accessKey: tokenKey(issued.accessToken),
        refreshKey: tokenKey(issued.refreshToken!),
        body
      })
      prune(s, now)
      core.commit()
      return json(body)
    }
    if (grantType === null) return fitbitError(400, "invalid_request", "Missing parameters: grant_type")
    return fitbitError(400, "unsupported_grant_type", `Unsupported grant_type: ${grantType}`)
  }

  const revokeUserFor = (s: FitbitState, match: (r: { clientId: string; userId: string }) => boolean) => {
    revokeWhere(s, match)
    s.subscriptions = s.subscriptions.filter((sub) => !match({ clientId: sub.clientId, userId: sub.ownerId }))
  }

  const revoke = (req: SimRequestShape) => {
    const clientId = clientAuth(req)
    if (typeof clientId !== "string") return clientId
    const value = req.form.get("token")
    if (value === null || value === "") return fitbitError(400, "invalid_request", "Missing parameters: token")
    const s = core.state
    const key = tokenKey(value)
    const owner = s.access[key] ?? s.refresh[key]
    if (owner !== undefined && owner.clientId === clientId) {
      req.identify({ userId: owner.userId })
      revokeUserFor(s, (r) => r.clientId === clientId && r.userId === owner.userId)
      core.commit()
    }
    // RFC 7009: an unknown token is not an error
    return json({})
  }

  return { authorizePage, token, revoke, revokeUserFor }
}
