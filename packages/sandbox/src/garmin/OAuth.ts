/**
 * The Garmin simulator's OAuth 1.0a: every signed request's signature and nonce checked, the
 * request token, the consent page (`oauthConfirm`) with its permissions, and the access token
 * for the verifier, which registers the user with the consumer.
 */
import * as Response from "@effect/platform/HttpServerResponse"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as crypto from "node:crypto"
import { parseOAuthHeader } from "../core/Credentials.js"
import { normalizeBaseUri, readOAuth1, signatureMatches } from "../core/OAuth1.js"
import { providerUserIds } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import {
  consentPage,
  errorPage,
  escapeHtml,
  isAbsoluteUrl,
  readConsent,
  redirectWith,
  selfUrl
} from "../core/Responses.js"
import type { GarminCore } from "./Shapes.js"
import {
  formEncoded,
  GARMIN_PERMISSIONS,
  garminError,
  NONCE_MEMORY,
  registrationKey,
  REQUEST_TOKEN_TTL_MS
} from "./Shapes.js"

export const makeGarminOAuth = (core: GarminCore, nonces: Set<string>) => {
  const randomHex = (bytes: number) => crypto.randomBytes(bytes).toString("hex")

  type Verified = {
    readonly consumerKey: string
    readonly token: string | undefined
    readonly verifier: string | undefined
  }

  /** Checks an OAuth 1.0a signed request; `tokenSecret` finds the token's secret or says why not. */
  const verifySigned = (
    req: SimRequestShape,
    tokenSecret: (consumerKey: string, token: string | undefined) => string | { readonly error: string }
  ): Verified | HttpServerResponse.HttpServerResponse => {
    const header = parseOAuthHeader(req.headers["authorization"])
    const params = readOAuth1(header, req.query, req.form)
    if (typeof params === "string") return garminError(401, params)
    const consumerSecret = core.clientSecret(params.consumerKey)
    if (consumerSecret === undefined) return garminError(401, "Invalid consumer key")
    req.identify({ clientId: params.consumerKey })
    const secret = tokenSecret(params.consumerKey, params.token)
    if (typeof secret !== "string") return garminError(401, secret.error)
    const urls = core.baseCandidates(req.headers).map((base) => `${base}${req.path}`)
    const ok = signatureMatches({
      method: req.method,
      baseUris: [...urls, ...urls.map(normalizeBaseUri)],
      header,
      query: req.query,
      form: req.form,
      params,
      consumerSecret,
      tokenSecret: secret
    })
    if (!ok) return garminError(401, "Invalid signature")
    const nonceKey = `${params.consumerKey}:${params.timestamp}:${params.nonce}`
    if (nonces.has(nonceKey)) return garminError(401, "Nonce already used")
    nonces.add(nonceKey)
    if (nonces.size > NONCE_MEMORY) nonces.delete(nonces.values().next().value!)
    return { consumerKey: params.consumerKey, token: params.token, verifier: params.verifier }
  }

  const requestToken = (req: SimRequestShape) => {
    const verified = verifySigned(req, () => "")
    if (!("consumerKey" in verified)) return verified
    const header = parseOAuthHeader(req.headers["authorization"])
    const callback = header?.get("oauth_callback") ?? req.form.get("oauth_callback") ?? req.query.get("oauth_callback")
    const token = crypto.randomUUID()
    const secret = randomHex(20)
    const s = core.state
    const now = core.nowMs()
    for (const [key, record] of Object.entries(s.requestTokens)) {
      if (record.expiresAt <= now) delete s.requestTokens[key]
    }
    s.requestTokens[token] = {
      consumerKey: verified.consumerKey,
      secret,
      callback: callback !== null && callback !== undefined && isAbsoluteUrl(callback) ? callback : null,
      expiresAt: now + REQUEST_TOKEN_TTL_MS,
      verifier: null,
      userId: null,
      permissions: null
    }
    core.commit()
    return formEncoded({ oauth_token: token, oauth_token_secret: secret, oauth_callback_confirmed: "true" })
  }

  const confirm = (req: SimRequestShape) => {
    const token = req.query.get("oauth_token")
    if (token === null || token === "") return errorPage("Garmin Connect", "Missing oauth_token")
    const s = core.state
    const record = s.requestTokens[token]
    if (record === undefined || record.expiresAt <= core.nowMs()) {
      return errorPage("Garmin Connect", "Invalid or expired oauth_token")
    }
    const given = req.query.get("oauth_callback")
    if (given !== null && given !== "oob" && !isAbsoluteUrl(given)) {
      return errorPage("Garmin Connect", "Invalid oauth_callback")
    }
    const callback = given !== null && given !== "oob" ? given : record.callback
    if (req.method === "GET") {
      return consentPage({
        providerName: "Garmin Connect",
        clientId: record.consumerKey,
        action: selfUrl(core, req),
        choicesLabel: "Permissions",
        choices: GARMIN_PERMISSIONS.map((value) => ({ value, checked: value !== "HISTORICAL_DATA_EXPORT" }))
      })
    }
    const consent = readConsent(req.form, GARMIN_PERMISSIONS)
    if (consent.decision === undefined) return errorPage("Garmin Connect", "decision must be approve or deny")
    if (consent.decision === "deny") {
      delete s.requestTokens[token]
      core.commit()
      return callback === null
        ? errorPage("Garmin Connect", "Access was denied (oauth_problem=user_refused)", 403)
        : redirectWith(callback, { oauth_token: token, oauth_problem: "user_refused" })
    }
    const userId = providerUserIds.garmin(consent.user)
    s.users[userId] = { name: consent.user }
    record.userId = userId
    record.permissions = [...consent.granted]
    record.verifier = randomHex(8)
    core.commit()
    req.identify({ clientId: record.consumerKey, userId })
    if (callback === null) {
      return Response.text(
        `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Garmin Connect sandbox</title></head>` +
          `<body><p>Verifier: <code id="oauth_verifier">${escapeHtml(record.verifier)}</code></p></body></html>\n`,
        { contentType: "text/html; charset=utf-8" }
      )
    }
    return redirectWith(callback, { oauth_token: token, oauth_verifier: record.verifier })
  }

  const accessToken = (req: SimRequestShape) => {
    const s = core.state
    const verified = verifySigned(req, (consumerKey, token) => {
      const record = token === undefined ? undefined : s.requestTokens[token]
      if (record === undefined || record.consumerKey !== consumerKey || record.expiresAt <= core.nowMs()) {
        return { error: "Invalid or expired request token" }
      }
      return record.secret
    })
    if (!("consumerKey" in verified)) return verified
    const record = s.requestTokens[verified.token!]!
    if (record.verifier === null || record.userId === null) return garminError(401, "Request token not authorized")
    if (verified.verifier === undefined) return garminError(401, "Missing oauth_verifier")
    if (verified.verifier !== record.verifier) return garminError(401, "Invalid oauth_verifier")
    delete s.requestTokens[verified.token!]
    const userId = record.userId
    const uat = crypto.randomUUID()
    const secret = randomHex(20)
    s.uats[uat] = { consumerKey: verified.consumerKey, userId, secret }
    s.registrations[registrationKey(verified.consumerKey, userId)] = {
      consumerKey: verified.consumerKey,
      userId,
      permissions: record.permissions ?? [...GARMIN_PERMISSIONS],
      active: true,
      lastUat: uat
    }
    core.commit()
    req.identify({ userId })
    return formEncoded({ oauth_token: uat, oauth_token_secret: secret })
  }

  return { verifySigned, requestToken, confirm, accessToken }
}
