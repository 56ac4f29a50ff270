/**
 * The Garmin simulator's OAuth 2.0 with PKCE, as Garmin's OAuth2 PKCE specification describes it:
 * the consent page `GET|POST /oauth2Confirm` (`response_type=code`, `client_id`, `redirect_uri`,
 * `state`, an S256 `code_challenge` required, no scopes: the user ticks permissions), the token
 * endpoint `POST /di-oauth2-service/oauth/token` (client credentials in the form; the
 * `authorization_code` grant checks the verifier and the redirect URI; the `refresh_token` grant
 * rotates, a spent or 90-day-old refresh token is `invalid_grant`), and the token exchange
 * `POST /partner-gateway/rest/user/token-exchange` that turns a user's OAuth 1.0a token (the
 * request signed with it) into an OAuth 2.0 pair with no consent.
 *
 * Token replies carry `expires_in` 86,400, `refresh_token_expires_in` 7,776,000, `jti` and a
 * `scope` naming Garmin's API families (not the user's permissions, which `/user/permissions`
 * lists). Errors of the token endpoint are RFC 6749 JSON (`{"error", "error_description"}`).
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as crypto from "node:crypto"
import {
  bodyClient,
  challengePattern,
  issueCode,
  issueTokens,
  newGrantId,
  pkceMatches,
  prune,
  redeemCode
} from "../core/OAuth2.js"
import { providerUserIds, tokenKey } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { GarminOAuth } from "./Api.js"
import type { GarminCore } from "./Shapes.js"
import {
  ACCESS_TTL_SECONDS,
  CODE_TTL_MS,
  DI_SCOPE,
  GARMIN_PERMISSIONS,
  oauth2State,
  REFRESH_TTL_SECONDS,
  registrationKey
} from "./Shapes.js"

const oauthError = (status: number, error: string, description: string) =>
  json({ error, error_description: description }, status)

export const makeGarminOAuth2 = (core: GarminCore, verifySigned: GarminOAuth["verifySigned"]) => {
  const tokenBody = (issued: { readonly accessToken: string; readonly refreshToken: string | null }) => ({
    access_token: issued.accessToken,
    token_type: "bearer",
    refresh_token: issued.refreshToken,
    expires_in: ACCESS_TTL_SECONDS,
    scope: DI_SCOPE,
    jti: crypto.randomUUID(),
    refresh_token_expires_in: REFRESH_TTL_SECONDS
  })

  /** Registers (or re-activates) the user with the client as an OAuth 2.0 user. */
  const register = (consumerKey: string, userId: string, permissions: ReadonlyArray<string> | undefined) => {
    const s = core.state
    const key = registrationKey(consumerKey, userId)
    const existing = s.registrations[key]
    s.registrations[key] = {
      consumerKey,
      userId,
      permissions: permissions === undefined ? existing?.permissions ?? [...GARMIN_PERMISSIONS] : [...permissions],
      active: true,
      lastUat: existing?.active === true ? existing.lastUat : null,
      oauth2: true
    }
  }

  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) return errorPage("Garmin Connect", "Invalid client_id")
    const redirectUri = q.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) return errorPage("Garmin Connect", "Invalid redirect_uri")
    const state = q.get("state")
    if (q.get("response_type") !== "code") {
      return redirectWith(redirectUri, { error: "unsupported_response_type", state })
    }
    const challenge = q.get("code_challenge")
    // PKCE is required, and only S256.
    if (challenge === null || !challengePattern.test(challenge) || q.get("code_challenge_method") !== "S256") {
      return redirectWith(redirectUri, {
        error: "invalid_request",
        error_description: "code_challenge with code_challenge_method=S256 is required",
        state
      })
    }
    if (req.method === "GET") {
      return consentPage({
        providerName: "Garmin Connect",
        clientId,
        action: selfUrl(core, req),
        choicesLabel: "Permissions",
        choices: GARMIN_PERMISSIONS.map((value) => ({ value, checked: value !== "HISTORICAL_DATA_EXPORT" }))
      })
    }
    const consent = readConsent(req.form, GARMIN_PERMISSIONS)
    if (consent.decision === undefined) return errorPage("Garmin Connect", "decision must be approve or deny")
    if (consent.decision === "deny") return redirectWith(redirectUri, { error: "access_denied", state })
    const userId = providerUserIds.garmin(consent.user)
    const s = core.state
    s.users[userId] = { name: consent.user }
    const code = issueCode(oauth2State(s), {
      clientId,
      userId,
      redirectUri,
      // The permissions ride with the code until the exchange registers the user.
      scope: consent.granted.join(" "),
      challenge,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return oauthError(401, "invalid_client", "Client authentication failed")
    }
    const clientId = client.id
    req.identify({ clientId })
    const o2 = oauth2State(core.state)
    const now = core.nowMs()
    const grantType = req.form.get("grant_type")
    if (grantType === "authorization_code") {
      const record = redeemCode(o2, req.form.get("code") ?? "", now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return oauthError(400, "invalid_grant", "Invalid or expired authorization code")
      }
      if (req.form.get("redirect_uri") !== record.redirectUri) {
        return oauthError(400, "invalid_grant", "redirect_uri does not match the authorization request")
      }
      if (record.challenge === null || !pkceMatches(record.challenge, req.form.get("code_verifier"))) {
        return oauthError(400, "invalid_grant", "code_verifier does not match the code_challenge")
      }
      register(clientId, record.userId, record.scope.split(" ").filter((p) => p !== ""))
      const issued = issueTokens(
        o2,
        { clientId, userId: record.userId, scope: DI_SCOPE, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      core.commit()
      req.identify({ userId: record.userId })
      return json(tokenBody(issued))
    }
    if (grantType === "refresh_token") {
      const record = o2.refresh[tokenKey(req.form.get("refresh_token") ?? "")]
      if (record === undefined || record.clientId !== clientId) {
        return oauthError(400, "invalid_grant", "Invalid refresh token")
      }
      req.identify({ userId: record.userId })
      if (record.usedAt !== null) return oauthError(400, "invalid_grant", "Refresh token already used")
      if (record.issuedAt + REFRESH_TTL_SECONDS * 1000 <= now) {
        return oauthError(400, "invalid_grant", "Refresh token expired")
      }
      const registration = core.state.registrations[registrationKey(clientId, record.userId)]
      if (registration === undefined || !registration.active) {
        return oauthError(400, "invalid_grant", "The user has revoked access")
      }
      record.usedAt = now
      for (const [k, a] of Object.entries(o2.access)) if (a.grantId === record.grantId) delete o2.access[k]
      const issued = issueTokens(
        o2,
        { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      prune(o2, now)
      core.commit()
      return json(tokenBody(issued))
    }
    return oauthError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
  }

  /** OAuth 1.0a token in (the request signed with it), OAuth 2.0 pair out; the OAuth 1.0a token stays valid. */
  const tokenExchange = (req: SimRequestShape) => {
    const s = core.state
    const verified = verifySigned(req, (consumerKey, token) => {
      const record = token === undefined ? undefined : s.uats[token]
      if (record === undefined || record.consumerKey !== consumerKey) return { error: "Invalid user access token" }
      return record.secret
    })
    if (!("consumerKey" in verified)) return verified
    const record = s.uats[verified.token!]!
    req.identify({ userId: record.userId })
    const registration = s.registrations[registrationKey(record.consumerKey, record.userId)]
    if (record.revoked === true || registration === undefined || !registration.active) {
      return json({ errorMessage: "User access token revoked" }, 403)
    }
    registration.oauth2 = true
    const issued = issueTokens(
      oauth2State(s),
      { clientId: record.consumerKey, userId: record.userId, scope: DI_SCOPE, grantId: newGrantId() },
      core.nowMs(),
      ACCESS_TTL_SECONDS,
      true
    )
    core.commit()
    return json(tokenBody(issued))
  }

  return { authorizePage, token, tokenExchange }
}
