/**
 * The Oura simulator's webhooks: the app-level subscription API (`/v2/webhook/subscription`, authenticated with
 * `x-client-id` and `x-client-secret`: list, create, read, update, delete, `renew/{id}`), the verification of a
 * callback when a subscription is created, updated or renewed (a GET of
 * `?verification_token=...&challenge=...` that must answer 200 with `{"challenge": "<challenge>"}`, else the
 * call fails with 400), and notifications, signed: `x-oura-signature` is the upper-case hex HMAC-SHA256 of
 * `x-oura-timestamp` (Unix seconds) + body, keyed with the client secret.
 *
 * Where the docs are silent: a second subscription of the same callback, event and data type is 409; the
 * lifetime is `SUBSCRIPTION_TTL_MS`; a request without valid client headers is 401.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Response from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import type { Delivery } from "../core/Deliver.js"
import { deliver } from "../core/Deliver.js"
import { parseDay, randomToken } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { OuraData } from "./Data.js"
import type { OuraControl, OuraCore, Subscription } from "./Shapes.js"
import { problem, SUBSCRIPTION_TTL_MS, WEBHOOK_DATA_TYPES, WEBHOOK_EVENT_TYPES } from "./Shapes.js"

/** The upper-case hex HMAC-SHA256 of `timestamp + body`, keyed with the client secret. */
export const ouraSignature = (clientSecret: string, timestamp: string, body: string): string =>
  crypto.createHmac("sha256", clientSecret).update(timestamp + body).digest("hex").toUpperCase()

const model = (s: Subscription) => ({
  id: s.id,
  callback_url: s.callbackUrl,
  event_type: s.eventType,
  data_type: s.dataType,
  expiration_time: new Date(s.expiresAt).toISOString().replace(/\.\d{3}Z$/, "+00:00")
})

/** Oura's GET to a callback (through `client`, else the platform's fetch); whether it answered the challenge. */
const verifyCallbackWith = (client: HttpClient.HttpClient | undefined) => (url: string, verificationToken: string) =>
  Effect.gen(function*() {
    const challenge = randomToken(16)
    const target = new URL(url)
    target.searchParams.set("verification_token", verificationToken)
    target.searchParams.set("challenge", challenge)
    const response = yield* HttpClient.execute(HttpClientRequest.get(target.toString()))
    if (response.status !== 200) return false
    const body: unknown = yield* Effect.orElseSucceed(response.json, () => undefined)
    return typeof body === "object" && body !== null && (body as { challenge?: unknown }).challenge === challenge
  }).pipe(
    Effect.scoped,
    Effect.timeout("10 seconds"),
    Effect.orElseSucceed(() => false),
    client === undefined ? Effect.provide(FetchHttpClient.layer) : Effect.provideService(HttpClient.HttpClient, client)
  )

export const makeOuraWebhooks = (core: OuraCore, data: OuraData, httpClient?: HttpClient.HttpClient) => {
  const verifyCallback = verifyCallbackWith(httpClient)
  /** The app a management call is for, when its client headers are right. */
  const appOf = (req: SimRequestShape): string | undefined => {
    const id = req.headers["x-client-id"]
    return core.isClient(id) && core.clientSecret(id) === req.headers["x-client-secret"] ? id : undefined
  }

  const managed = (
    f: (
      clientId: string,
      req: SimRequestShape,
      params: Readonly<Record<string, string | undefined>>
    ) => HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) =>
  (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) => {
    const clientId = appOf(req)
    if (clientId === undefined) return problem(401, "Invalid client credentials", "x-client-id or x-client-secret")
    req.identify({ clientId })
    return f(clientId, req, params)
  }

  const readBody = (req: SimRequestShape): Record<string, unknown> | undefined => {
    try {
      const body = JSON.parse(req.body)
      return typeof body === "object" && body !== null && !Array.isArray(body) ? body : undefined
    } catch {
      return undefined
    }
  }

  const owned = (clientId: string, id: string | undefined) => {
    const sub = id === undefined ? undefined : core.state.subscriptions[id]
    return sub !== undefined && sub.clientId === clientId ? sub : undefined
  }

  const list = managed((clientId) =>
    json(Object.values(core.state.subscriptions).filter((s) => s.clientId === clientId).map(model))
  )

  const create = managed((clientId, req) => {
    const body = readBody(req)
    const field = (name: string) => (typeof body?.[name] === "string" ? body[name] as string : undefined)
    const callbackUrl = field("callback_url")
    const verificationToken = field("verification_token")
    const eventType = field("event_type")
    const dataType = field("data_type")
    if (
      callbackUrl === undefined || verificationToken === undefined || eventType === undefined ||
      dataType === undefined || !WEBHOOK_EVENT_TYPES.includes(eventType) || !WEBHOOK_DATA_TYPES.includes(dataType)
    ) {
      return json({ detail: [{ loc: ["body"], msg: "invalid subscription", type: "value_error" }] }, 422)
    }
    const taken = Object.values(core.state.subscriptions).some((s) =>
      s.clientId === clientId && s.callbackUrl === callbackUrl && s.eventType === eventType &&
      s.dataType === dataType && s.expiresAt > core.nowMs()
    )
    if (taken) return problem(409, "Subscription already exists")
    return Effect.map(verifyCallback(callbackUrl, verificationToken), (verified) => {
      if (!verified) return problem(400, "Callback verification failed", "The callback did not answer the challenge.")
      const sub: Subscription = {
        id: crypto.randomUUID(),
        clientId,
        callbackUrl,
        verificationToken,
        eventType,
        dataType,
        expiresAt: core.nowMs() + SUBSCRIPTION_TTL_MS
      }
      core.state.subscriptions[sub.id] = sub
      core.commit()
      return json(model(sub), 201)
    })
  })

  const read = managed((clientId, _req, params) => {
    const sub = owned(clientId, params["id"])
    return sub === undefined ? problem(404, "Subscription not found") : json(model(sub))
  })

  const update = managed((clientId, req, params) => {
    const sub = owned(clientId, params["id"])
    if (sub === undefined) return problem(404, "Subscription not found")
    const body = readBody(req)
    const token = body?.["verification_token"]
    if (typeof token !== "string") {
      return json({ detail: [{ loc: ["body", "verification_token"], msg: "field required" }] }, 422)
    }
    const next = {
      callbackUrl: typeof body?.["callback_url"] === "string" ? body["callback_url"] as string : sub.callbackUrl,
      eventType: typeof body?.["event_type"] === "string" ? body["event_type"] as string : sub.eventType,
      dataType: typeof body?.["data_type"] === "string" ? body["data_type"] as string : sub.dataType
    }
    return Effect.map(verifyCallback(next.callbackUrl, token), (verified) => {
      if (!verified) return problem(400, "Callback verification failed")
      Object.assign(sub, next, { verificationToken: token })
      core.commit()
      return json(model(sub))
    })
  })

  const remove = managed((clientId, _req, params) => {
    const sub = owned(clientId, params["id"])
    if (sub === undefined) return problem(404, "Subscription not found")
    delete core.state.subscriptions[sub.id]
    core.commit()
    return Response.empty({ status: 204 })
  })

  const renew = managed((clientId, _req, params) => {
    const sub = owned(clientId, params["id"])
    if (sub === undefined) return problem(404, "Subscription not found")
    return Effect.map(verifyCallback(sub.callbackUrl, sub.verificationToken), (verified) => {
      if (!verified) return problem(400, "Callback verification failed")
      sub.expiresAt = core.nowMs() + SUBSCRIPTION_TTL_MS
      core.commit()
      return json(model(sub))
    })
  })

  const connected = (clientId: string, userId: string) => {
    const s = core.state
    return Object.values(s.access).some((r) => r.clientId === clientId && r.userId === userId) ||
      Object.values(s.refresh).some((r) => r.clientId === clientId && r.userId === userId && r.usedAt === null)
  }

  const notify: OuraControl["notify"] = (event) =>
    Effect.gen(function*() {
      const now = core.nowMs()
      const eventDay = event.day === undefined ? undefined : parseDay(event.day)
      let objectId = event.objectId
      if (objectId === undefined) {
        const today = Math.floor(now / 86_400_000) + 1
        for (let day = eventDay ?? today; day > (eventDay ?? today) - 7 && objectId === undefined; day--) {
          objectId = data.docsOf(event.userId, event.dataType, day, now)[0]?.id
        }
      }
      if (objectId === undefined) return yield* Effect.dieMessage(`no ${event.dataType} document to notify of`)
      const deliveries: Array<Delivery> = []
      for (const sub of Object.values(core.state.subscriptions)) {
        if (sub.expiresAt <= now || sub.dataType !== event.dataType || sub.eventType !== event.eventType) continue
        if (!connected(sub.clientId, event.userId)) continue
        const payload = JSON.stringify({
          event_type: event.eventType,
          data_type: event.dataType,
          object_id: objectId,
          event_time: new Date(now).toISOString(),
          user_id: event.userId
        })
        const timestamp = String(Math.floor(now / 1000))
        deliveries.push(
          yield* deliver(sub.callbackUrl, payload, {
            "x-oura-signature": ouraSignature(core.client(sub.clientId).clientSecret, timestamp, payload),
            "x-oura-timestamp": timestamp
          })
        )
      }
      return deliveries
    })

  const subscriptions: OuraControl["subscriptions"] = (clientId) =>
    Object.values(core.state.subscriptions).filter((s) => clientId === undefined || s.clientId === clientId).map(
      model
    )

  const expireSubscriptions: OuraControl["expireSubscriptions"] = (inMs) => {
    for (const sub of Object.values(core.state.subscriptions)) sub.expiresAt = core.nowMs() + inMs
    core.commit()
  }

  return { list, create, read, update, remove, renew, notify, subscriptions, expireSubscriptions }
}
