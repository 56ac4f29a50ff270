/**
 * The Oura simulator's OAuth 2.0 (cloud.ouraring.com/docs/authentication): the consent page at
 * `/oauth/authorize` (the user may untick scopes; the redirect carries `code`, `scope` and `state`), the token
 * endpoint at `/oauth/token` (client credentials in the form body, or Basic: the docs show the body; a code works
 * once, within ten minutes, with the `redirect_uri` it was issued for), refresh tokens that work once ("Token
 * Already Used Or Revoked"), and `/oauth/revoke?access_token=...`, which ends the grant.
 *
 * Where the docs are silent: a spent refresh token is refused without revoking the grant; refreshing leaves the
 * previous access token valid until it expires; revocation answers 200 with `{}` to GET or POST.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { parseBasic } from "../core/Credentials.js"
import {
  bodyClient,
  issueCode,
  issueTokens,
  newGrantId,
  prune,
  redeemCode,
  rememberUser,
  revokeWhere,
  rotateRefreshToken
} from "../core/OAuth2.js"
import { tokenKey } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { OuraCore } from "./Shapes.js"
import { ACCESS_TTL_SECONDS, CODE_TTL_MS, oauthError, OURA_SCOPES, ouraUserId } from "./Shapes.js"

/** Client credentials from the body, else from Basic. */
const clientOf = (req: SimRequestShape): { readonly id: string | null; readonly secret: string | null } => {
  const body = bodyClient(req.form)
  if (body.id !== null) return body
  return parseBasic(req.headers["authorization"]) ?? { id: null, secret: null }
}

export const makeOuraOAuth = (core: OuraCore) => {
  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) return errorPage("Oura", "Invalid client_id.")
    const redirectUri = q.get("redirect_uri")
    // the simulator knows no registered URIs, so the optional parameter is required
    if (!isAbsoluteUrl(redirectUri)) return errorPage("Oura", "Missing redirect_uri parameter.")
    const state = q.get("state")
    if (q.get("response_type") !== "code") {
      return redirectWith(redirectUri, { error: "unsupported_response_type", state })
    }
    const asked = [...new Set((q.get("scope") ?? "").split(/[\s+]+/).filter((s) => s !== ""))]
    const unknown = asked.filter((s) => !OURA_SCOPES.includes(s))
    if (unknown.length > 0) {
      return redirectWith(redirectUri, {
        error: "invalid_scope",
        error_description: `Unknown scope: ${unknown.join(" ")}`,
        state
      })
    }
    // no scope: the user is asked for every scope
    const scopes = asked.length === 0 ? OURA_SCOPES : asked
    if (req.method === "GET") {
      return consentPage({
        providerName: "Oura",
        clientId,
        action: selfUrl(core, req),
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) return errorPage("Oura", "decision must be approve or deny")
    if (consent.decision === "deny" || consent.granted.length === 0) {
      return redirectWith(redirectUri, {
        error: "access_denied",
        error_description: "The user denied the request.",
        state
      })
    }
    const userId = ouraUserId(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const scope = consent.granted.join(" ")
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope,
      challenge: null,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, scope, state })
  }

  const tokenBody = (issued: { accessToken: string; refreshToken: string | null; scope: string }) => ({
    token_type: "bearer",
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    refresh_token: issued.refreshToken,
    scope: issued.scope
  })

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = clientOf(req)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return oauthError(401, "invalid_client", "Invalid client_id or client_secret.")
    }
    const clientId = client.id
    req.identify({ clientId })
    const s = core.state
    const now = core.nowMs()
    switch (req.form.get("grant_type")) {
      case "authorization_code": {
        const record = redeemCode(s, req.form.get("code") ?? "", now)
        core.commit()
        if (typeof record === "string" || record.clientId !== clientId) {
          return oauthError(400, "invalid_grant", "Invalid or expired authorization code.")
        }
        const redirectUri = req.form.get("redirect_uri")
        if (redirectUri === null) return oauthError(400, "invalid_request", "redirect_uri missing.")
        if (redirectUri !== record.redirectUri) {
          return oauthError(400, "invalid_grant", "Redirect URI does not match the authorization request.")
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
        return json(tokenBody(issued))
      }
      case "refresh_token": {
        const rotated = rotateRefreshToken(s, req.form.get("refresh_token") ?? "", clientId, now, ACCESS_TTL_SECONDS)
        if (rotated === undefined) {
          return oauthError(400, "invalid_grant", "Token already used or revoked.")
        }
        const { issued, record } = rotated
        req.identify({ userId: record.userId })
        core.commit()
        return json(tokenBody(issued))
      }
      default:
        return oauthError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token.")
    }
  }

  const revoke = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const token = req.query.get("access_token") ?? req.form.get("access_token")
    const record = token === null ? undefined : core.state.access[tokenKey(token)]
    if (record === undefined) return oauthError(401, "invalid_token", "Invalid access token.")
    req.identify({ clientId: record.clientId, userId: record.userId })
    revokeWhere(core.state, (r) => r.grantId === record.grantId)
    core.commit()
    return json({})
  }

  return { authorizePage, token, revoke }
}
