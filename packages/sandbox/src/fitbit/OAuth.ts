/**
 * The simulator's Google OAuth 2.0: the consent page at `/o/oauth2/v2/auth` (granular: the user
 * may untick any scope), the token endpoint at `/token` (client in the form or a Basic header,
 * PKCE S256 checked, a refresh token only with `access_type=offline` and, for a user who gave the
 * app offline access before, only again with `prompt=consent`; refresh tokens are neither rotated
 * nor spent), and `/revoke`, which ends the whole grant.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { parseBasic } from "../core/Credentials.js"
import {
  bodyClient,
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
import { tokenKey } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { FitbitCore, FitbitState } from "./Shapes.js"
import { ACCESS_TTL_SECONDS, CODE_TTL_MS, GOOGLE_HEALTH_SCOPES, healthUserIdOf, oauthError } from "./Shapes.js"

/** Google's consent errors are pages titled "Error 400: <error>". */
const googleErrorPage = (status: 400 | 401, error: string, detail: string) =>
  errorPage("Google", `Error ${status}: ${error} - ${detail}`, status)

const offlineKey = (clientId: string, userId: string) => `${clientId} ${userId}`

export const makeFitbitOAuth = (core: FitbitCore) => {
  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (clientId === null || clientId === "") {
      return googleErrorPage(400, "invalid_request", "Missing required parameter: client_id")
    }
    if (!core.isClient(clientId)) return googleErrorPage(401, "invalid_client", "The OAuth client was not found.")
    const redirectUri = q.get("redirect_uri")
    if (redirectUri === null || redirectUri === "") {
      return googleErrorPage(400, "invalid_request", "Missing required parameter: redirect_uri")
    }
    if (!isAbsoluteUrl(redirectUri)) return googleErrorPage(400, "redirect_uri_mismatch", "Invalid redirect_uri")
    const responseType = q.get("response_type")
    if (responseType === null) {
      return googleErrorPage(400, "invalid_request", "Missing required parameter: response_type")
    }
    if (responseType !== "code") {
      return googleErrorPage(400, "unsupported_response_type", `Invalid response_type: ${responseType}`)
    }
    const scopeParam = q.get("scope")
    if (scopeParam === null || scopeParam.trim() === "") {
      return googleErrorPage(400, "invalid_request", "Missing required parameter: scope")
    }
    const scopes = [...new Set(scopeParam.split(/[\s+]+/).filter((s) => s !== ""))]
    const unknown = scopes.filter((s) => !GOOGLE_HEALTH_SCOPES.includes(s))
    if (unknown.length > 0) {
      return googleErrorPage(
        400,
        "invalid_scope",
        `Some requested scopes were invalid. {invalid=[${unknown.join(", ")}]}`
      )
    }
    const accessType = q.get("access_type") ?? "online"
    if (accessType !== "online" && accessType !== "offline") {
      return googleErrorPage(400, "invalid_request", `Invalid access_type: ${accessType}`)
    }
    const prompts = (q.get("prompt") ?? "").split(" ").filter((p) => p !== "")
    if (prompts.some((p) => !["none", "consent", "select_account"].includes(p))) {
      return googleErrorPage(400, "invalid_request", "Invalid prompt")
    }
    const challenge = q.get("code_challenge")
    if (challenge !== null) {
      if (challenge.length < 43 || challenge.length > 128 || !challengePattern.test(challenge)) {
        return googleErrorPage(400, "invalid_request", "Invalid code_challenge")
      }
      if (q.get("code_challenge_method") !== "S256") {
        return googleErrorPage(400, "invalid_request", "Invalid code_challenge_method: only S256 is accepted here")
      }
    }
    const state = q.get("state")
    if (req.method === "GET") {
      return consentPage({
        providerName: "Google",
        clientId,
        action: selfUrl(core, req),
        detail: "Choose what the app may see of your Google Health (Fitbit) data.",
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) {
      return googleErrorPage(400, "invalid_request", "decision must be approve or deny")
    }
    if (consent.decision === "deny" || consent.granted.length === 0) {
      return redirectWith(redirectUri, { error: "access_denied", state })
    }
    const userId = healthUserIdOf(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const offline = accessType === "offline"
    const key = offlineKey(clientId, userId)
    // Google sends a refresh token the first time offline access is given, and later only with prompt=consent.
    const withRefresh = offline && (prompts.includes("consent") || s.offline[key] === undefined)
    if (offline) s.offline[key] = true
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope: consent.granted.join(" "),
      challenge,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    if (withRefresh) s.offlineCodes[tokenKey(code)] = true
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { state, code, scope: consent.granted.join(" ") })
  }

  /** `client_secret_post` or a Basic header: Google takes either. */
  const clientAuth = (req: SimRequestShape) => {
    const basic = parseBasic(req.headers["authorization"])
    const body = bodyClient(req.form)
    const id = basic?.id ?? body.id
    const secret = basic?.secret ?? body.secret
    if (id === null || id === undefined || id === "") {
      return oauthError(400, "invalid_request", "Missing required parameter: client_id")
    }
    if (!core.isClient(id)) return oauthError(401, "invalid_client", "The OAuth client was not found.")
    if (core.clientSecret(id) !== secret) return oauthError(401, "invalid_client", "Unauthorized")
    req.identify({ clientId: id })
    return id
  }

  const tokenResponse = (issued: { accessToken: string; refreshToken: string | null; scope: string }) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    ...(issued.refreshToken === null ? {} : { refresh_token: issued.refreshToken }),
    scope: issued.scope,
    token_type: "Bearer"
  })

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const clientId = clientAuth(req)
    if (typeof clientId !== "string") return clientId
    const form = req.form
    const s = core.state
    const now = core.nowMs()
    const grantType = form.get("grant_type")
    if (grantType === "authorization_code") {
      const code = form.get("code")
      if (code === null || code === "") return oauthError(400, "invalid_request", "Missing required parameter: code")
      const record = redeemCode(s, code, now)
      const withRefresh = s.offlineCodes[tokenKey(code)] === true
      delete s.offlineCodes[tokenKey(code)]
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return oauthError(400, "invalid_grant", "Malformed auth code.")
      }
      if (record.redirectUri !== null && form.get("redirect_uri") !== record.redirectUri) {
        return oauthError(400, "redirect_uri_mismatch", "Bad Request")
      }
      if (record.challenge !== null) {
        const verifier = form.get("code_verifier")
        if (verifier === null || verifier === "") return oauthError(400, "invalid_grant", "Missing code verifier.")
        if (!pkceMatches(record.challenge, verifier)) return oauthError(400, "invalid_grant", "Invalid code verifier.")
      }
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        withRefresh
      )
      core.commit()
      req.identify({ userId: record.userId })
      return json(tokenResponse(issued))
    }
    if (grantType === "refresh_token") {
      const refreshToken = form.get("refresh_token")
      if (refreshToken === null || refreshToken === "") {
        return oauthError(400, "invalid_request", "Missing required parameter: refresh_token")
      }
      const record = s.refresh[tokenKey(refreshToken)]
      if (record === undefined || record.clientId !== clientId) {
        return oauthError(400, "invalid_grant", "Token has been expired or revoked.")
      }
      req.identify({ userId: record.userId })
      // not rotated, not spent: the same refresh token keeps working until revoked
      if (record.usedAt === null) record.usedAt = now
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
        now,
        ACCESS_TTL_SECONDS,
        false
      )
      prune(s, now)
      core.commit()
      return json(tokenResponse(issued))
    }
    if (grantType === null) return oauthError(400, "invalid_request", "Missing required parameter: grant_type")
    return oauthError(400, "unsupported_grant_type", `Invalid grant_type: ${grantType}`)
  }

  const revokeUserFor = (s: FitbitState, match: (r: { clientId: string; userId: string }) => boolean) => {
    revokeWhere(s, match)
    for (const key of Object.keys(s.offline)) {
      const [clientId, userId] = key.split(" ")
      if (match({ clientId: clientId!, userId: userId! })) delete s.offline[key]
    }
  }

  /** Takes the token from the form or the query; no client authentication. */
  const revoke = (req: SimRequestShape) => {
    const value = req.form.get("token") ?? req.query.get("token")
    if (value === null || value === "") return oauthError(400, "invalid_request", "Missing required parameter: token")
    const s = core.state
    const key = tokenKey(value)
    const owner = s.access[key] ?? s.refresh[key]
    if (owner === undefined) return oauthError(400, "invalid_token", "Token expired or revoked")
    req.identify({ clientId: owner.clientId, userId: owner.userId })
    revokeUserFor(s, (r) => r.clientId === owner.clientId && r.userId === owner.userId)
    core.commit()
    return json({})
  }

  return { authorizePage, token, revoke, revokeUserFor }
}
