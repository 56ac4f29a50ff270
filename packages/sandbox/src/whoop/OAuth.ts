/**
 * The WHOOP simulator's OAuth 2.0, ORY-Hydra-like: the consent page (state of at least 8
 * characters, PKCE plain or S256), the token endpoint with body client credentials, refresh
 * tokens only with `offline`, and rotation with reuse detection that revokes the grant.
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
  redeemCode,
  rememberUser,
  revokeWhere
} from "../core/OAuth2.js"
import { providerUserIds, tokenKey } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { consentPage, errorPage, isAbsoluteUrl, json, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { WhoopCore } from "./Shapes.js"
import { ACCESS_TTL_SECONDS, CODE_TTL_MS, GRANT_ERROR, hydraError, WHOOP_SCOPES } from "./Shapes.js"

export const makeWhoopOAuth = (core: WhoopCore) => {
  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) {
      return errorPage("WHOOP", "invalid_client: Client authentication failed (unknown client).")
    }
    const redirectUri = q.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) {
      return errorPage("WHOOP", "invalid_request: The request is missing a valid 'redirect_uri' parameter.")
    }
    const state = q.get("state")
    if (q.get("response_type") !== "code") {
      return redirectWith(redirectUri, {
        error: "unsupported_response_type",
        error_description: "The authorization server does not support obtaining a token using this method.",
        state
      })
    }
    if (state === null || state.length < 8) {
      return redirectWith(redirectUri, {
        error: "invalid_state",
        error_description: "The state is missing or does not have enough characters and is therefore considered too " +
          "weak. Request parameter 'state' must be at least be 8 characters long to ensure sufficient entropy.",
        state
      })
    }
    const scopes = [...new Set((q.get("scope") ?? "").split(/[\s+]+/).filter((s) => s !== ""))]
    const unknown = scopes.filter((s) => !WHOOP_SCOPES.includes(s))
    if (unknown.length > 0) {
      return redirectWith(redirectUri, {
        error: "invalid_scope",
        error_description: `The requested scope is invalid, unknown, or malformed: ${unknown.join(" ")}`,
        state
      })
    }
    const challenge = q.get("code_challenge")
    const method = q.get("code_challenge_method") ?? "plain"
    if (challenge !== null && (!challengePattern.test(challenge) || (method !== "S256" && method !== "plain"))) {
      return redirectWith(redirectUri, {
        error: "invalid_request",
        error_description: "The PKCE code challenge or method is invalid.",
        state
      })
    }
    if (req.method === "GET") {
      return consentPage({
        providerName: "WHOOP",
        clientId,
        action: selfUrl(core, req),
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) return errorPage("WHOOP", "decision must be approve or deny")
    if (consent.decision === "deny") {
      return redirectWith(redirectUri, {
        error: "access_denied",
        error_description: "The resource owner or authorization server denied the request.",
        state
      })
    }
    const userId = String(providerUserIds.whoop(consent.user))
    const s = core.state
    rememberUser(s, userId, consent.user)
    const scope = consent.granted.join(" ")
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope,
      // plain challenges are stored as the S256 of themselves, so one check serves both
      challenge: challenge === null
        ? null
        : method === "plain"
        ? crypto.createHash("sha256").update(challenge).digest("base64url")
        : challenge,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, scope, state })
  }

  const tokenBody = (issued: { accessToken: string; refreshToken: string | null; scope: string }) => ({
    access_token: issued.accessToken,
    expires_in: ACCESS_TTL_SECONDS,
    ...(issued.refreshToken === null ? {} : { refresh_token: issued.refreshToken }),
    scope: issued.scope,
    token_type: "bearer"
  })

  const token = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const client = bodyClient(req.form)
    if (!core.isClient(client.id) || core.clientSecret(client.id) !== client.secret) {
      return hydraError(
        401,
        "invalid_client",
        "Client authentication failed (e.g., unknown client, no client authentication included, or unsupported " +
          "authentication method)."
      )
    }
    const clientId = client.id
    req.identify({ clientId })
    const s = core.state
    const now = core.nowMs()
    const grantType = req.form.get("grant_type")
    if (grantType === "authorization_code") {
      const code = req.form.get("code") ?? ""
      const record = redeemCode(s, code, now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) {
        return hydraError(400, "invalid_grant", GRANT_ERROR)
      }
      if (record.redirectUri !== null && req.form.get("redirect_uri") !== record.redirectUri) {
        return hydraError(400, "invalid_grant", GRANT_ERROR)
      }
      if (record.challenge !== null) {
        const verifier = req.form.get("code_verifier")
        if (!pkceMatches(record.challenge, verifier)) {
          return hydraError(400, "invalid_grant", "The PKCE code challenge did not match the code verifier.")
        }
      }
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        record.scope.split(" ").includes("offline")
      )
      core.commit()
      req.identify({ userId: record.userId })
      return json(tokenBody(issued))
    }
    if (grantType === "refresh_token") {
      const key = tokenKey(req.form.get("refresh_token") ?? "")
      const record = s.refresh[key]
      if (record === undefined || record.clientId !== clientId) return hydraError(400, "invalid_grant", GRANT_ERROR)
      req.identify({ userId: record.userId })
      if (record.usedAt !== null) {
        // reuse of a rotated refresh token: treat the grant as stolen
        revokeWhere(s, (r) => r.grantId === record.grantId)
        core.commit()
        return hydraError(400, "invalid_grant", GRANT_ERROR)
      }
      record.usedAt = now
      for (const [k, a] of Object.entries(s.access)) if (a.grantId === record.grantId) delete s.access[k]
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      prune(s, now)
      core.commit()
      return json(tokenBody(issued))
    }
    return hydraError(
      400,
      "unsupported_grant_type",
      "The authorization grant type is not supported by the authorization server."
    )
  }

  return { authorizePage, token }
}
