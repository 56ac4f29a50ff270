/**
 * The Withings simulator's OAuth 2.0: the consent page (`/oauth2_user/authorize2`: `response_type=code`,
 * `client_id`, `state`, comma-separated `scope` and `redirect_uri`, all required), the token service
 * (`POST /v2/oauth2`, `action=requesttoken` with `client_id` and `client_secret` in the form), nonces
 * (`POST /v2/signature`, `action=getnonce`) and the signed revocation (`action=revoke`).
 *
 * As the reference says: a code is valid 30 seconds and used once; `expires_in` is 10800; the reply names the user
 * (`userid`). Every refresh answers a new refresh token and the one presented stops working. Where the reference
 * is silent, what clients of the live API report: a spent or unknown code answers 503 "Invalid Params: invalid
 * code", a spent or unknown refresh token 503 "Invalid Params: invalid refresh_token"; wrong client credentials
 * answer 100 (Authentication failed). The access token of the previous refresh stays valid until it expires (not
 * documented either way). Everything is HTTP 200 with the status envelope, and counts against the app's 120
 * requests a minute.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as crypto from "node:crypto"
import {
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
import { consentPage, errorPage, isAbsoluteUrl, readConsent, redirectWith, selfUrl } from "../core/Responses.js"
import type { WithingsCore } from "./Shapes.js"
import {
  ACCESS_TTL_SECONDS,
  CODE_TTL_MS,
  failure,
  invalidParams,
  MINUTE_LIMIT,
  NONCE_TTL_MS,
  ok,
  tooMany,
  WITHINGS_SCOPES,
  withingsUserId
} from "./Shapes.js"

/** HMAC-SHA256 (hex), keyed with the client secret, of the values sorted by their names, comma-joined. */
export const withingsSimulatorSignature = (params: Readonly<Record<string, string>>, secret: string): string =>
  crypto.createHmac("sha256", secret).update(Object.keys(params).sort().map((k) => params[k]).join(",")).digest("hex")

export const makeWithingsOAuth = (core: WithingsCore) => {
  /** The app's minute, counted for every call made with its credentials or its users' tokens. */
  const overLimit = (clientId: string) =>
    core.rates.hit(`minute:${clientId}`, 60_000, MINUTE_LIMIT, core.nowMs()).limited

  const authorizePage = (req: SimRequestShape) => {
    const q = req.query
    const clientId = q.get("client_id")
    if (!core.isClient(clientId)) return errorPage("Withings", "Invalid client_id.")
    const redirectUri = q.get("redirect_uri")
    if (!isAbsoluteUrl(redirectUri)) return errorPage("Withings", "Invalid redirect_uri.")
    const state = q.get("state")
    if (q.get("response_type") !== "code" || state === null || state === "") {
      return redirectWith(redirectUri, { error: "invalid_request", state })
    }
    const scopes = [...new Set((q.get("scope") ?? "").split(",").map((s) => s.trim()).filter((s) => s !== ""))]
    if (scopes.length === 0 || scopes.some((s) => !WITHINGS_SCOPES.includes(s))) {
      return redirectWith(redirectUri, { error: "invalid_scope", state })
    }
    if (req.method === "GET") {
      return consentPage({
        providerName: "Withings",
        clientId,
        action: selfUrl(core, req),
        choices: scopes.map((value) => ({ value, checked: true }))
      })
    }
    const consent = readConsent(req.form, scopes)
    if (consent.decision === undefined) return errorPage("Withings", "decision must be approve or deny")
    if (consent.decision === "deny") return redirectWith(redirectUri, { error: "access_denied", state })
    const userId = withingsUserId(consent.user)
    const s = core.state
    rememberUser(s, userId, consent.user)
    const code = issueCode(s, {
      clientId,
      userId,
      redirectUri,
      scope: consent.granted.join(","),
      challenge: null,
      expiresAt: core.nowMs() + CODE_TTL_MS
    })
    prune(s, core.nowMs())
    core.commit()
    req.identify({ clientId, userId })
    return redirectWith(redirectUri, { code, state })
  }

  const tokenBody = (userId: string, issued: { accessToken: string; refreshToken: string | null; scope: string }) => ({
    userid: Number(userId),
    access_token: issued.accessToken,
    refresh_token: issued.refreshToken,
    expires_in: ACCESS_TTL_SECONDS,
    scope: issued.scope,
    csrf_token: crypto.randomBytes(16).toString("hex"),
    token_type: "Bearer"
  })

  const requestToken = (req: SimRequestShape, clientId: string): HttpServerResponse.HttpServerResponse => {
    const s = core.state
    const now = core.nowMs()
    const grantType = req.form.get("grant_type")
    if (grantType === "authorization_code") {
      const record = redeemCode(s, req.form.get("code") ?? "", now)
      core.commit()
      if (typeof record === "string" || record.clientId !== clientId) return invalidParams("invalid code")
      if (req.form.get("redirect_uri") !== record.redirectUri) return invalidParams("redirect_uri mismatch")
      const issued = issueTokens(
        s,
        { clientId, userId: record.userId, scope: record.scope, grantId: newGrantId() },
        now,
        ACCESS_TTL_SECONDS,
        true
      )
      core.commit()
      req.identify({ userId: record.userId })
      return ok(tokenBody(record.userId, issued))
    }
    if (grantType === "refresh_token") {
      const rotated = rotateRefreshToken(s, req.form.get("refresh_token") ?? "", clientId, now, ACCESS_TTL_SECONDS)
      if (rotated === undefined) {
        return invalidParams("invalid refresh_token")
      }
      const { issued, record } = rotated
      req.identify({ userId: record.userId })
      core.commit()
      return ok(tokenBody(record.userId, issued))
    }
    return invalidParams("grant_type")
  }

  /** A signed call's check: the nonce issued to the client and unused, and the signature over the given names. */
  const signed = (req: SimRequestShape, clientId: string, names: ReadonlyArray<string>): boolean => {
    const secret = core.clientSecret(clientId)
    const params: Record<string, string> = {}
    for (const name of names) params[name] = req.form.get(name) ?? ""
    return secret !== undefined && req.form.get("signature") === withingsSimulatorSignature(params, secret)
  }

  const revoke = (req: SimRequestShape, clientId: string) => {
    const s = core.state
    const nonce = req.form.get("nonce") ?? ""
    const issued = s.nonces[tokenKey(nonce)]
    if (issued === undefined || issued.clientId !== clientId || issued.expiresAt <= core.nowMs()) {
      return invalidParams("invalid nonce")
    }
    if (!signed(req, clientId, ["action", "client_id", "nonce"])) return invalidParams("invalid signature")
    delete s.nonces[tokenKey(nonce)]
    const userId = req.form.get("userid") ?? ""
    revokeWhere(s, (r) => r.clientId === clientId && r.userId === userId)
    for (const [key, sub] of Object.entries(s.subscriptions)) {
      if (sub.clientId === clientId && sub.userId === userId) delete s.subscriptions[key]
    }
    core.commit()
    req.identify({ userId })
    return ok({})
  }

  /** `POST /v2/oauth2`: `requesttoken` and `revoke`. */
  const oauth2 = (req: SimRequestShape): HttpServerResponse.HttpServerResponse => {
    const clientId = req.form.get("client_id")
    if (!core.isClient(clientId)) return failure(100, "Authentication failed: invalid client_id")
    req.identify({ clientId })
    if (overLimit(clientId)) return tooMany()
    const action = req.form.get("action")
    if (action === "revoke") return revoke(req, clientId)
    if (action !== "requesttoken") return failure(2554, "Not implemented")
    if (req.form.get("client_secret") !== core.clientSecret(clientId)) {
      return failure(100, "Authentication failed: invalid client_secret")
    }
    return requestToken(req, clientId)
  }

  /** `POST /v2/signature`, `action=getnonce`: a signed timestamp within ten minutes of now. */
  const signature = (req: SimRequestShape) => {
    const clientId = req.form.get("client_id")
    if (!core.isClient(clientId)) return failure(100, "Authentication failed: invalid client_id")
    req.identify({ clientId })
    if (overLimit(clientId)) return tooMany()
    if (req.form.get("action") !== "getnonce") return failure(2554, "Not implemented")
    const timestamp = Number(req.form.get("timestamp"))
    if (!Number.isInteger(timestamp) || Math.abs(timestamp * 1000 - core.nowMs()) > 10 * 60_000) {
      return invalidParams("invalid timestamp")
    }
    if (!signed(req, clientId, ["action", "client_id", "timestamp"])) return invalidParams("invalid signature")
    const nonce = crypto.randomBytes(20).toString("hex")
    core.state.nonces[tokenKey(nonce)] = { clientId, expiresAt: core.nowMs() + NONCE_TTL_MS }
    core.commit()
    return ok({ nonce })
  }

  return { authorizePage, oauth2, signature, overLimit }
}
