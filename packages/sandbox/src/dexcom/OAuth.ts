/**
 * The Dexcom simulator's OAuth 2.0 (on /v3/oauth2 and /v2/oauth2): the login page
 * (`scope=offline_access` only, the documented sandbox users suggested) and the token endpoint
 * with body client credentials, `expires_in` in seconds (7200) and
 * single-use rotating refresh tokens.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import {
  bodyClient,
  issueCode,
  issueTokens,
  newGrantId,
  prune,
  redeemCode,
  rememberUser,
  rotateRefreshToken
} from "../core/OAuth2.js"
import { providerUserIds } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { DexcomCore } from "./Shapes.js"
import { ACCESS_TTL_SECONDS, CODE_TTL_MS, DEXCOM_SANDBOX_USERS, dexcomError } from "./Shapes.js"

export const makeDexcomOAuth = (core: DexcomCore) => {
  const loginPage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) return errorPage("Dexcom", "Invalid client_id")
    const redirectUri = q.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) return errorPage("Dexcom", "Missing or invalid redirect_uri")
    const state = q.get("state")
    if (q.get("response_type") !== "code") {
      return redirectWith(redirectUri, { error: "unsupported_response_type", state })
    }
    if (q.get("scope") !== "offline_access") {
      return redirectWith(redirectUri, {
        error: "invalid_scope",
        error_description: "scope must be offline_access",
        state
      })
    }
    if (req.method === "GET") {
      return consentPage({
        providerName: "Dexcom",
        clientId,
        action: selfUrl(core, req),
        detail: "Scope: offline_access (EGVs, events, calibrations, devices, data range).",
        userSuggestions: DEXCOM_SANDBOX_USERS
      })
    }
    const consent = readConsent(req.form, ["offline_access"])
    if (consent.decision === undefined) return errorPage("Dexcom", "decision must be approve or deny")
    if (consent.decision === "deny") return redirectWith(redirectUri, { error: "access_denied", state })
    const userId = providerUserIds.dexcom(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope: "offline_access",
      challenge: null,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const tokenBody = (issued: { accessToken: string; refreshToken: string | null }) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    token_type: "Bearer",
    refresh_token: issued.refreshToken
  })

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return dexcomError(401, "invalid_client", "Client authentication failed")
    }
    const clientId = client.id
    req.identify({ clientId })
    const s = core.state
    const now = core.nowMs()
    const grantType = req.form.get("grant_type")
    if (grantType === "authorization_code") {
      const record = redeemCode(s, req.form.get("code") ?? "", now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return dexcomError(400, "invalid_grant", "Invalid or expired authorization code")
      }
      if (req.form.get("redirect_uri") !== record.redirectUri) {
        return dexcomError(400, "invalid_grant", "redirect_uri does not match the authorization request")
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
    if (grantType === "refresh_token") {
      const rotated = rotateRefreshToken(s, req.form.get("refresh_token") ?? "", clientId, now, ACCESS_TTL_SECONDS)
      if (rotated === undefined) {
        return dexcomError(400, "invalid_grant", "Invalid refresh token")
      }
      const { issued, record } = rotated
      req.identify({ userId: record.userId })
      core.commit()
      return json(tokenBody(issued))
    }
    return dexcomError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
  }

  return { loginPage, token }
}
