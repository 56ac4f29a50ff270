/**
 * The delivery worker: a fixed number of senders (`senders`) that take due deliveries as they free up, with
 * no round to wait for. Each claim (`DeliveriesRepo.claimDue`: the oldest pending delivery of each endpoint
 * and user, so one user's events arrive in order; `for update skip locked`, so any number of worker
 * processes share the work) leases as many as there are free senders, within each endpoint's and each
 * app's share (`sendersPerEndpoint`, `sendersPerApp`), so that endpoints that hang, of one app or one
 * endpoint, cannot hold every sender. An endpoint whose attempts keep failing is paused on its own
 * (`Breaker.ts`). Each attempt is signed (`Signing.ts`) when it is sent, and its outcome recorded: a 2xx
 * within 15 s is a delivery; anything else is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
 * 10 h, then the delivery is `Failed`. An endpoint failing for 5 days (`failing_since`) is disabled. A
 * worker that dies mid-attempt leaves a lease that runs out, and the delivery is sent again: at least
 * once, across restarts.
 *
 * The schedule lives in the database (`next_attempt_at`, `paused_until`), not in a fiber, so it survives
 * restarts; `now` always comes from `Clock`, so tests drive retries and pauses with `TestClock`.
 *
 * Its HTTP client is its own: redirects are not followed, a connection (TCP and TLS) must be made within
 * 5 s and an answer come within 15 s of the attempt's start, and at most 4 KiB of its body is read; it
 * trusts the public CAs and the operator's `WEBHOOK_CA_FILE`, and its sockets connect only to addresses
 * the rules allow (`Addresses.ts`), checked on the address DNS gave for this very connection.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import type * as http from "node:http"
import * as net from "node:net"
import { SecretBox } from "../platform/SecretBox.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import { clientSecureContext } from "../platform/Tls.js"
import type { AddressRules } from "./Addresses.js"
import { guardedLookup, isInternalAddress, mustRefuseInternal, unbracket, urlProblem } from "./Addresses.js"
import type { ClaimedDelivery, Outcome } from "./DeliveriesRepo.js"
import { DeliveriesRepo, maxAttempts } from "./DeliveriesRepo.js"
import { countDelivery } from "./DeliveryMetrics.js"
import { EndpointsRepo } from "./EndpointsRepo.js"
import { signHeaders } from "./Signing.js"

const second = 1000
const minute = 60 * second
const hour = 60 * minute

/** The wait before each retry: after the first attempt 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const retryDelaysMs: ReadonlyArray<number> = [
  5 * second,
  5 * minute,
  30 * minute,
  2 * hour,
  5 * hour,
  10 * hour,
  10 * hour
]

/** An endpoint whose deliveries have failed for this long is disabled. */
export const disableAfterMs = 5 * 24 * hour

/** How long an attempt waits for the receiver's answer, from its start. */
export const attemptTimeout = Duration.seconds(15)

/** How long an attempt waits for its connection (TCP, then TLS) to be made. */
export const connectTimeoutMs = 5 * second

/** A lease outlasts any attempt; a worker that died holding it loses the delivery to another after this. */
export const leaseMs = 60 * second

/** At most this much of an answer's body is read (only its start is kept, for the log). */
const maxResponseBytes = 4096

/** Attempts one worker process has under way at once at most. */
export const senders = 16

/** Of those, one app's at most: an app whose endpoints all hang leaves the other half to the others. */
export const sendersPerApp = senders / 2

/** Of those, one endpoint's at most (one only after a pause, `Breaker.ts`). */
export const sendersPerEndpoint = 2

/** How often an idle worker looks for due deliveries (a freed sender looks at once). */
const idlePoll = Duration.seconds(1)

/** The connection was not made in time. */
class ConnectTimeoutError extends Error {
  constructor() {
    super(`no connection within ${connectTimeoutMs / second} s`)
  }
}

/**
 * Makes each socket of `agent` fail when it is not connected within `connectTimeoutMs`: for https, until
 * the TLS handshake is done. What comes after (the answer) is the attempt's own timeout.
 */
const withConnectTimeout = (agent: http.Agent, connected: "connect" | "secureConnect") => {
  const create = agent.createConnection.bind(agent)
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback)
    if (socket === null || socket === undefined) return socket
    const timer = setTimeout(() => socket.destroy(new ConnectTimeoutError()), connectTimeoutMs)
    timer.unref()
    socket.once(connected, () => clearTimeout(timer))
    socket.once("close", () => clearTimeout(timer))
    return socket
  }
}

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/[\u0000-\u001F\u007F]+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max)}...` : flat
}

/** The short reason of a failed request, for the log: never the request, which carries the signature. */
const describeFailure = (error: unknown): string => {
  const seen = new Set<unknown>()
  let current: unknown = error
  // The platform wraps the socket's error; its own message names the request, the cause names what happened.
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current)
    const cause = (current as { cause?: unknown }).cause
    if (cause === undefined || cause === null) break
    current = cause
  }
  const code = (current as { code?: unknown } | null)?.code
  const message = current instanceof Error ? current.message : String(current)
  return oneLine(typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message, 200)
}

export interface AttemptResult {
  readonly statusCode: number | null
  /** Null when the receiver answered with a 2xx. */
  readonly error: string | null
}

export class Delivery extends Effect.Service<Delivery>()("@pulsebridge/server/Delivery", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* ServerConfig
    const box = yield* SecretBox
    const deliveries = yield* DeliveriesRepo
    const endpoints = yield* EndpointsRepo
    const rules: AddressRules = { sandbox: config.sandbox, allowPrivate: config.webhookAllowPrivate }
    const caFile = config.webhookCaFile
    const operatorCa = Option.isNone(caFile)
      ? undefined
      : yield* Effect.try(() => fs.readFileSync(caFile.value, "utf8")).pipe(
        Effect.orElse(() => Effect.dieMessage(`cannot read WEBHOOK_CA_FILE "${caFile.value}"`))
      )
    const agent = yield* NodeHttpClient.makeAgent({
      ...(operatorCa === undefined ? {} : { secureContext: clientSecureContext(operatorCa) }),
      lookup: guardedLookup(rules)
    })
    withConnectTimeout(agent.http, "connect")
    withConnectTimeout(agent.https, "secureConnect")
    const client = (yield* NodeHttpClient.make.pipe(Effect.provideService(NodeHttpClient.HttpAgent, agent))).pipe(
      HttpClient.withTracerPropagation(false)
    )

    /** POSTs the body once and reads the start of the answer. */
    const post = (url: string, headers: Record<string, string>, body: string) =>
      Effect.gen(function*() {
        const response = yield* client.execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(body, "application/json")
          )
        )
        const bytes = yield* response.stream.pipe(
          Stream.runFoldWhile(
            new Uint8Array(0),
            (acc) => acc.length < maxResponseBytes,
            (acc, chunk) => {
              const next = new Uint8Array(acc.length + chunk.length)
              next.set(acc)
              next.set(chunk, acc.length)
              return next
            }
          ),
          Effect.orElseSucceed(() => new Uint8Array(0))
        )
        const status = response.status
        if (status >= 200 && status < 300) return { statusCode: status, error: null } satisfies AttemptResult
        const text = oneLine(new TextDecoder().decode(bytes.subarray(0, maxResponseBytes)), 200)
        const redirect = status >= 300 && status < 400 ? " (redirects are not followed)" : ""
        return {
          statusCode: status,
          error: `HTTP ${status}${redirect}${text === "" ? "" : `: ${text}`}`
        } satisfies AttemptResult
      }).pipe(
        Effect.scoped,
        Effect.timeoutFail({
          duration: attemptTimeout,
          onTimeout: () => ({ statusCode: null, error: "no answer within 15 s" }) satisfies AttemptResult
        }),
        Effect.catchAll((failure) =>
          Effect.succeed(
            typeof failure === "object" && failure !== null && "error" in failure && "statusCode" in failure
              ? failure as AttemptResult
              : { statusCode: null, error: describeFailure(failure) } satisfies AttemptResult
          )
        )
      )

    /** One attempt of a claimed delivery, at `at`: the time it is signed with, as it is sent. */
    const attempt = (claimed: ClaimedDelivery, at: Date) =>
      Effect.gen(function*() {
        const found = yield* endpoints.secretsOf(claimed.endpointId)
        if (Option.isNone(found)) return Option.none<AttemptResult>()
        const endpoint = found.value
        // The rules may have changed since the URL was set; a literal address never goes through DNS.
        const problem = urlProblem(endpoint.url, rules)
        if (problem !== undefined) return Option.some({ statusCode: null, error: problem })
        const host = unbracket(new URL(endpoint.url).hostname)
        if (mustRefuseInternal(rules) && net.isIP(host) !== 0 && isInternalAddress(host)) {
          return Option.some({ statusCode: null, error: `${host} is a private, loopback or link-local address` })
        }
        const live = endpoint.previousSecretSealed !== null && endpoint.previousSecretExpiresAt !== null &&
            endpoint.previousSecretExpiresAt.getTime() > at.getTime()
          ? [endpoint.secretSealed, endpoint.previousSecretSealed]
          : [endpoint.secretSealed]
        const secrets = yield* Effect.forEach(live, (sealed) => box.open(sealed)).pipe(Effect.option)
        // Sealed with a key this process does not have (SECRET_KEY changed without SECRET_KEYS_OLD): a failed
        // attempt the log shows, never an unsigned request.
        if (Option.isNone(secrets)) {
          return Option.some({
            statusCode: null,
            error: "the endpoint's signing secret cannot be opened with this server's SECRET_KEY"
          })
        }
        const headers = {
          ...signHeaders(secrets.value, claimed.eventId, at, claimed.body),
          "user-agent": "PulseBridge-Webhooks/1.0"
        }
        return Option.some(yield* post(endpoint.url, headers, claimed.body))
      })

    /** The outcome of an attempt and what it does to the endpoint, in one transaction. */
    const record = (claimed: ClaimedDelivery, at: Date, result: AttemptResult) => {
      const attempts = claimed.attempts + 1
      const outcome: Outcome = result.error === null
        ? { _tag: "Delivered", statusCode: result.statusCode ?? 200 }
        : {
          _tag: "Failed",
          statusCode: result.statusCode,
          error: result.error,
          nextAttemptAt: attempts < maxAttempts ? new Date(at.getTime() + retryDelaysMs[attempts - 1]!) : null
        }
      return Effect.gen(function*() {
        const recorded = yield* deliveries.record(claimed.id, at, outcome)
        if (!recorded) return undefined
        if (outcome._tag === "Delivered") {
          yield* endpoints.markSucceeded(claimed.endpointId)
          return { delivered: true, retried: false, disabled: false, paused: false }
        }
        const { disabled, pausedUntil } = yield* endpoints.markFailed(
          claimed.endpointId,
          at,
          new Date(at.getTime() - disableAfterMs),
          `deliveries failed for 5 days (last error: ${oneLine(outcome.error, 120)})`
        )
        if (disabled) {
          yield* Effect.logWarning("Webhook endpoint disabled after failing for 5 days").pipe(
            Effect.annotateLogs({ endpointId: claimed.endpointId })
          )
        }
        if (pausedUntil !== null) {
          yield* Effect.logInfo("Webhook endpoint paused after failing attempts in a row").pipe(
            Effect.annotateLogs({ endpointId: claimed.endpointId, pausedUntil: pausedUntil.toISOString() })
          )
        }
        return { delivered: false, retried: outcome.nextAttemptAt !== null, disabled, paused: pausedUntil !== null }
      }).pipe(
        sql.withTransaction,
        Effect.tap((counted) => counted === undefined ? Effect.void : countDelivery(counted))
      )
    }

    /** Attempts a claimed delivery now (signed with this moment) and records the outcome. */
    const deliver = (claimed: ClaimedDelivery) =>
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const result = yield* attempt(claimed, at)
        if (Option.isSome(result)) yield* record(claimed, at, result.value)
      }).pipe(
        Effect.withSpan("Delivery.deliver", { attributes: { deliveryId: claimed.id } }),
        Effect.catchAllCause((cause) =>
          // The lease runs out and the delivery is tried again.
          Effect.logWarning("Webhook delivery attempt could not be recorded").pipe(
            Effect.annotateLogs({ deliveryId: claimed.id, cause: Cause.pretty(cause) })
          )
        )
      )

    // The attempts under way in this process, in all, by endpoint and by app: what the shares are counted against.
    const busy = { total: 0, endpoints: new Map<string, number>(), apps: new Map<string, number>() }
    const adjust = (counts: Map<string, number>, key: string, by: number) => {
      const next = (counts.get(key) ?? 0) + by
      if (next > 0) counts.set(key, next)
      else counts.delete(key)
    }
    const occupy = (claimed: ClaimedDelivery, by: 1 | -1) => {
      busy.total += by
      adjust(busy.endpoints, claimed.endpointId, by)
      adjust(busy.apps, claimed.appId, by)
    }
    /**
     * Leases as many due deliveries as there are free senders and the shares allow, counted as under way. The
     * process's one `run` claims one batch at a time; claims of concurrent `tick`s (tests of several workers)
     * may each count a share as free, and the database's row locks still keep them from one delivery.
     */
    const claim = Effect.gen(function*() {
      const free = senders - busy.total
      if (free <= 0) return []
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* deliveries.claimDue(new Date(now), new Date(now + leaseMs), {
        limit: free,
        perEndpoint: sendersPerEndpoint,
        perApp: sendersPerApp,
        busyEndpoints: Object.fromEntries(busy.endpoints),
        busyApps: Object.fromEntries(busy.apps)
      })
      for (const delivery of claimed) occupy(delivery, 1)
      return claimed
    })

    /**
     * Sends due deliveries as senders free up: claims whenever one of its attempts ends, and otherwise every
     * `idlePoll`. With `untilIdle` it ends once nothing more is due now and none of its attempts is under way,
     * answering how many it attempted; without, it runs for as long as its fiber does.
     */
    const pump = (untilIdle: boolean) =>
      Effect.gen(function*() {
        const ended = yield* Queue.sliding<void>(1)
        let underWay = 0
        let attempted = 0
        const settle = (delivery: ClaimedDelivery) =>
          Effect.suspend(() => {
            occupy(delivery, -1)
            underWay -= 1
            return ended.offer(undefined)
          })
        while (true) {
          const claimed = yield* (untilIdle ? claim : claim.pipe(
            Effect.catchAllCause((cause) =>
              Effect.as(
                Effect.logWarning("Webhook deliveries could not be claimed").pipe(
                  Effect.annotateLogs({ cause: Cause.pretty(cause) })
                ),
                []
              )
            )
          ))
          for (const delivery of claimed) {
            underWay += 1
            attempted += 1
            yield* Effect.forkScoped(Effect.ensuring(deliver(delivery), settle(delivery)))
          }
          if (claimed.length > 0) continue
          if (untilIdle && underWay === 0) {
            // An attempt that ended while the claim ran freed its share after the claim had counted it: look again.
            if (Option.isSome(yield* Queue.poll(ended))) continue
            return attempted
          }
          yield* untilIdle ? Queue.take(ended) : Effect.timeoutOption(Queue.take(ended), idlePoll)
        }
      }).pipe(Effect.scoped)

    /**
     * Sends what is due now, each delivery as a sender frees up (and the next of a user's once the one before
     * it is delivered), and waits for those attempts: how many it attempted. All at the `Clock`'s time.
     */
    const tick = pump(true).pipe(Effect.withSpan("Delivery.tick"))

    /** The senders, for as long as the process runs. */
    const run = pump(false).pipe(Effect.asVoid)

    return { tick, run } as const
  }),
  dependencies: [DeliveriesRepo.Default, EndpointsRepo.Default]
}) {}

/** The worker loop, on processes that run workers unless `WEBHOOK_DELIVERY=off`. */
export const DeliveryWorkerLive = Layer.scopedDiscard(
  Effect.flatMap(Delivery, (delivery) => Effect.forkScoped(delivery.run))
)
