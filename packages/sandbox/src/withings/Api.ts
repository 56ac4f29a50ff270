/**
 * The Withings simulator's data services, each a POST with the access token as `Authorization: Bearer` and the
 * parameters in the form (or the query): `/measure` `getmeas`, `/v2/measure` `getactivity` and `getworkouts`,
 * `/v2/sleep` `getsummary`, and `/notify` `subscribe`, `list`, `get` and `revoke`. Lists come in small pages with
 * `more` and `offset` (`getmeas` writes `more` as 0 or 1, the v2 services as a boolean, as the reference shows).
 *
 * Errors as Withings answers them, HTTP 200 with a status: 401 for a missing, unknown or expired token, 601 past the
 * app's 120 requests a minute, 503 (Invalid Params) for a missing or malformed parameter, and 214 (Unauthorized)
 * for a service whose scope the user did not grant (the reference does not say which code that is). Before a
 * subscription is stored its callback URL must answer a HEAD request with a 2xx, as Withings checks.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type { AccessRecord } from "../core/OAuth2.js"
import { authenticate } from "../core/OAuth2.js"
import { parseDay } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import type { Served, WithingsData } from "./Data.js"
import type { WithingsCore } from "./Shapes.js"
import { APPLI_SCOPES, failure, invalidParams, invalidToken, ok, PAGE_SIZE, tooMany, unauthorized } from "./Shapes.js"

const param = (req: SimRequestShape, name: string): string | null => req.form.get(name) ?? req.query.get(name)

const integerParam = (req: SimRequestShape, name: string): number | undefined | "invalid" => {
  const raw = param(req, name)
  if (raw === null || raw === "") return undefined
  return /^-?\d{1,15}$/.test(raw) ? Number(raw) : "invalid"
}

/** One page from `offset` of `items`, and where the next starts. */
const pageOf = <A>(items: ReadonlyArray<A>, offset: number, size: number) => {
  const slice = items.slice(offset, offset + size)
  const more = offset + size < items.length
  return { slice, more, offset: more ? offset + size : 0 }
}

export const makeWithingsApi = (
  core: WithingsCore,
  data: WithingsData,
  overLimit: (clientId: string) => boolean,
  /** Checks a callback URL answers (a HEAD request); the test seam for Withings' probe. */
  probe: (url: string) => Effect.Effect<boolean>
) => {
  const api = (
    req: SimRequestShape,
    f: (
      record: AccessRecord
    ) => HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1] ??
      param(req, "access_token") ?? undefined
    const auth = authenticate(core.state, bearer, core.nowMs())
    if (auth._tag !== "Ok") return Effect.succeed(invalidToken())
    req.identify({ clientId: auth.record.clientId, userId: auth.record.userId })
    if (overLimit(auth.record.clientId)) return Effect.succeed(tooMany())
    const out = f(auth.record)
    return Effect.isEffect(out) ? out : Effect.succeed(out)
  }

  const granted = (record: AccessRecord, scope: string) => record.scope.split(",").includes(scope)

  const offsetOf = (req: SimRequestShape): number | "invalid" => {
    const offset = integerParam(req, "offset")
    return offset === undefined ? 0 : offset === "invalid" || offset < 0 ? "invalid" : offset
  }

  /** `/measure`, `action=getmeas`: the groups measured between `startdate` and `enddate`. */
  const measure = (req: SimRequestShape) =>
    api(req, (record) => {
      if (param(req, "action") !== "getmeas") return failure(2554, "Not implemented")
      if (!granted(record, "user.metrics")) return unauthorized()
      const start = integerParam(req, "startdate")
      const end = integerParam(req, "enddate")
      const category = integerParam(req, "category")
      const offset = offsetOf(req)
      if (start === "invalid" || end === "invalid" || category === "invalid" || offset === "invalid") {
        return invalidParams("startdate, enddate, category and offset must be integers")
      }
      if (category !== undefined && category !== 1 && category !== 2) return invalidParams("category")
      const typesParam = param(req, "meastypes") ?? param(req, "meastype")
      const types = typesParam === null ? undefined : typesParam.split(",").map(Number)
      if (types !== undefined && types.some((t) => !Number.isInteger(t))) return invalidParams("meastypes")
      const now = core.nowMs()
      const groups = data
        .measuresBetween(record.userId, (start ?? 0) * 1000, (end ?? Math.floor(now / 1000)) * 1000, now)
        .map((g) => g.body)
        .filter((g) => category === undefined || g["category"] === category)
        .map((g) =>
          types === undefined
            ? g
            : {
              ...g,
              measures: (g["measures"] as ReadonlyArray<{ type: number }>).filter((m) => types.includes(m.type))
            }
        )
        .filter((g) => (g["measures"] as ReadonlyArray<unknown>).length > 0)
      const page = pageOf(groups, offset, PAGE_SIZE.measures)
      return ok({
        updatetime: Math.floor(now / 1000),
        timezone: data.traits(record.userId).zone.name,
        measuregrps: page.slice,
        more: page.more ? 1 : 0,
        offset: page.offset
      })
    })

  /** A by-date list between `startdateymd` and `enddateymd`, in pages under `key`. */
  const byDate = (
    req: SimRequestShape,
    record: AccessRecord,
    kind: "activity" | "workouts" | "sleep",
    key: "activities" | "series"
  ) => {
    if (!granted(record, "user.activity")) return unauthorized()
    const from = parseDay(param(req, "startdateymd") ?? "")
    const to = parseDay(param(req, "enddateymd") ?? "")
    const offset = offsetOf(req)
    if (from === undefined || to === undefined || from > to || offset === "invalid") {
      return invalidParams("startdateymd and enddateymd (Y-m-d, in order) are required")
    }
    const items = data.byDate(kind, record.userId, from, to, core.nowMs()).map((r: Served) => r.body)
    const page = pageOf(items, offset, PAGE_SIZE[kind])
    return ok({ [key]: page.slice, more: page.more, offset: page.offset })
  }

  const measureV2 = (req: SimRequestShape) =>
    api(req, (record) => {
      switch (param(req, "action")) {
        case "getactivity":
          return byDate(req, record, "activity", "activities")
        case "getworkouts":
          return byDate(req, record, "workouts", "series")
        default:
          return failure(2554, "Not implemented")
      }
    })

  const sleepV2 = (req: SimRequestShape) =>
    api(
      req,
      (record) =>
        param(req, "action") === "getsummary"
          ? byDate(req, record, "sleep", "series")
          : failure(2554, "Not implemented")
    )

  // ---- notify ----

  const subscriptionKey = (clientId: string, userId: string, appli: number, url: string) =>
    `${clientId} ${userId} ${appli} ${url}`

  const subscribe = (req: SimRequestShape, record: AccessRecord) => {
    const url = param(req, "callbackurl")
    const appli = integerParam(req, "appli")
    if (url === null || url === "" || url.length > 255 || appli === undefined || appli === "invalid") {
      return Effect.succeed(invalidParams("callbackurl and appli are required"))
    }
    const scope = APPLI_SCOPES[appli]
    if (scope === undefined) return Effect.succeed(invalidParams("appli"))
    if (!granted(record, scope)) return Effect.succeed(unauthorized())
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return Effect.succeed(invalidParams("callbackurl"))
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return Effect.succeed(invalidParams("callbackurl"))
    return Effect.map(probe(url), (answered) => {
      if (!answered) return failure(293, "Invalid Params: the callback URL did not answer HEAD with 2xx")
      core.state.subscriptions[subscriptionKey(record.clientId, record.userId, appli, url)] = {
        clientId: record.clientId,
        userId: record.userId,
        appli,
        callbackurl: url,
        comment: param(req, "comment")
      }
      core.commit()
      return ok({})
    })
  }

  const subscriptionsOf = (record: AccessRecord) =>
    Object.values(core.state.subscriptions).filter((s) => s.clientId === record.clientId && s.userId === record.userId)

  const notify = (req: SimRequestShape) =>
    api(req, (record) => {
      const appli = integerParam(req, "appli")
      switch (param(req, "action")) {
        case "subscribe":
          return subscribe(req, record)
        case "list":
          return ok({
            profiles: subscriptionsOf(record)
              .filter((s) => appli === undefined || s.appli === appli)
              .map((s) => ({ appli: s.appli, callbackurl: s.callbackurl, comment: s.comment }))
          })
        case "get": {
          const url = param(req, "callbackurl")
          const found = subscriptionsOf(record).find((s) => s.callbackurl === url && s.appli === (appli ?? 1))
          return found === undefined
            ? invalidParams("no such subscription")
            : ok({ appli: found.appli, callbackurl: found.callbackurl, comment: found.comment })
        }
        case "revoke": {
          const url = param(req, "callbackurl")
          const gone = subscriptionsOf(record).filter((s) =>
            s.callbackurl === url && (appli === undefined || s.appli === appli)
          )
          if (gone.length === 0) return invalidParams("no such subscription")
          for (const s of gone) {
            delete core.state.subscriptions[subscriptionKey(s.clientId, s.userId, s.appli, s.callbackurl)]
          }
          core.commit()
          return ok({})
        }
        default:
          return failure(2554, "Not implemented")
      }
    })

  return { measure, measureV2, sleepV2, notify }
}

/** Withings' check of a callback URL: a HEAD request answered 2xx within a few seconds. */
export const headProbe = (client?: HttpClient.HttpClient) => (url: string): Effect.Effect<boolean> =>
  HttpClient.execute(HttpClientRequest.head(url)).pipe(
    Effect.map((response) => response.status >= 200 && response.status < 300),
    Effect.timeout("5 seconds"),
    Effect.orElseSucceed(() => false),
    Effect.scoped,
    client === undefined ? Effect.provide(FetchHttpClient.layer) : Effect.provideService(HttpClient.HttpClient, client)
  )
