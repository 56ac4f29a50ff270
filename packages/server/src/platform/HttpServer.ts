/**
 * The listener and the outgoing HTTP client. The listener speaks TLS on `PORT` (plain HTTP is
 * refused on the same port), or plain HTTP behind a TLS-terminating proxy (`TRUST_PROXY=true`).
 * The client for provider calls trusts the public CAs and this server's own certificate, which
 * the sandbox providers mounted on this server present.
 *
 * The listener also gives this process's mark of its calls to itself (`SelfCalls`), which the outgoing client
 * sets and the rate limiter reads.
 *
 * The port is bound first, before the database, so a busy port is reported at once; until the
 * whole application serves, and again once it stops, every request gets a fast 503 JSON with
 * `Retry-After` (`/health/live` answers 200 all along). Without that gate a request reaching the
 * Node server before `HttpServer.serve` installs the app's `request` listener is parsed and then
 * never answered: Node does nothing with a request nobody listens for.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as IncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as http from "node:http"
import type * as net from "node:net"
import type * as stream from "node:stream"
import { SelfCalls } from "./SelfCalls.js"
import { ServerConfig } from "./ServerConfig.js"
import { SettledResponse } from "./SettledResponse.js"
import { clientSecureContext, loadOrCreateCertificate, makeHttpsServer } from "./Tls.js"

/** The certificate this server presents, so it can call itself (the sandbox providers). */
export class ServerCertificate extends Context.Tag("@pulsebridge/server/ServerCertificate")<ServerCertificate, {
  readonly cert: string | null
}>() {}

export class ListenError extends Data.TaggedError("ListenError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export const ProviderHttpClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { cert } = yield* ServerCertificate
  return NodeHttpClient.layerWithoutAgent.pipe(
    Layer.provide(NodeHttpClient.makeAgentLayer(cert === null ? {} : { secureContext: clientSecureContext(cert) }))
  )
}))

/** How long requests in flight may still run once the server stops. */
export const drainTimeoutMs = 10_000

/** Socket-level limits: a client gets this long to send its headers, and its whole request. */
export const headersTimeoutMs = 20_000
export const requestTimeoutMs = 120_000
export const keepAliveTimeoutMs = 5_000

const jsonBody = (tag: string, message: string) => JSON.stringify({ _tag: tag, message })

/** Answers on the listener itself (below the app) with a JSON body; `close` ends the connection after it. */
const writeJson = (
  response: http.ServerResponse,
  status: number,
  body: string,
  options: { readonly close: boolean; readonly headers?: Record<string, string> } = { close: true }
) => {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...options.headers,
    ...(options.close ? { "connection": "close" } : {})
  })
  response.end(body)
}

const unavailable =
  (phase: "starting" | "stopping") => (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (phase === "starting" && request.method === "GET" && request.url === "/health/live") {
      return writeJson(response, 200, JSON.stringify({ status: "ok" }), { close: false })
    }
    const message = phase === "starting" ? "The server is starting; retry shortly" : "The server is shutting down"
    writeJson(response, 503, jsonBody("ServiceUnavailable", message), { close: true, headers: { "retry-after": "1" } })
  }

/** The JSON answer to an error of Node's HTTP parser, which never reaches the application. */
export const clientErrorResponse = (code: string | undefined): string => {
  const [status, reason, tag, message] = code === "HPE_HEADER_OVERFLOW"
    ? [431, "Request Header Fields Too Large", "RequestHeaderFieldsTooLarge", "The request headers are too large"]
    : code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? [408, "Request Timeout", "RequestTimeout", "The request was not received in time"]
    : code === "HPE_INVALID_METHOD"
    ? [400, "Bad Request", "BadRequest", "Unknown HTTP method"]
    : code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
    ? [413, "Payload Too Large", "PayloadTooLarge", "The chunk extensions are too large"]
    : [400, "Bad Request", "BadRequest", "The request could not be parsed"]
  return rawJsonResponse(status, reason, tag, message)
}

/** A whole HTTP/1.1 answer with the JSON error body, closing the connection, for a socket no response owns. */
export const rawJsonResponse = (status: number, reason: string, tag: string, message: string): string => {
  const body = jsonBody(tag, message)
  return `HTTP/1.1 ${status} ${reason}\r\n` +
    "content-type: application/json\r\n" +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    "connection: close\r\n" +
    "\r\n" +
    body
}

/** Answers the parser's errors and unmet `Expect` headers on `server` with the JSON error body. */
export const answerClientErrors = (server: http.Server) => {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: stream.Duplex) => {
    const message = (socket as { _httpMessage?: http.ServerResponse })._httpMessage
    if (error.code === "ECONNRESET" || !socket.writable || message?.headersSent === true) {
      socket.destroy()
      return
    }
    socket.end(clientErrorResponse(error.code))
  })
  // CONNECT (a proxy tunnel) is not a request to this server; without a listener Node drops the connection.
  server.on("connect", (_request: http.IncomingMessage, socket: stream.Duplex) => {
    socket.on("error", () => socket.destroy())
    socket.end(rawJsonResponse(405, "Method Not Allowed", "MethodNotAllowed", "CONNECT is not supported"))
  })
  server.on("checkExpectation", (_request: http.IncomingMessage, response: http.ServerResponse) => {
    writeJson(response, 417, jsonBody("ExpectationFailed", "Only `Expect: 100-continue` is supported"))
  })
}

type Listener = (request: http.IncomingMessage, response: http.ServerResponse) => void

/**
 * The services a request's fiber starts with: the platform's, which the router and file answers read, and the
 * configuration. Every other service a request uses is reached through what its route captured when it was built
 * (an API group's handlers carry their own context, merged in by the platform), not through the process's whole
 * context: each service added to a request's context (the request, its route, its caller, its user) copies the
 * context, so a request that started with all 58 of the application's services copied about 800 entries and
 * allocated a third of its memory doing it.
 */
const requestRootServices: ReadonlyArray<Context.Tag<any, any>> = [
  HttpPlatform.HttpPlatform,
  Etag.Generator,
  FileSystem.FileSystem,
  Path.Path,
  ServerConfig
]

const requestRoot = (context: Context.Context<never>): Context.Context<never> =>
  Context.pick(...requestRootServices)(context as Context.Context<any>) as Context.Context<never>

/**
 * Like `NodeHttpServer.make`, but the app is reached through a switch that answers 503 while
 * no app serves, and whose `serve` finalizer drains the requests in flight (up to
 * `drainTimeoutMs`) before the rest of the application is torn down.
 */
const makeGated = (server: http.Server, options: net.ListenOptions) =>
  Effect.gen(function*() {
    server.headersTimeout = headersTimeoutMs
    server.requestTimeout = requestTimeoutMs
    server.keepAliveTimeout = keepAliveTimeoutMs
    answerClientErrors(server)

    let current: Listener = unavailable("starting")
    let inFlight = 0
    let drained: (() => void) | undefined
    server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
      inFlight++
      response.once("close", () => {
        inFlight--
        if (inFlight === 0) drained?.()
      })
      // Node would answer a missing Host itself, with an empty body; servers are made with `requireHostHeader: false`.
      if (request.httpVersionMajor === 1 && request.httpVersionMinor >= 1 && request.headers.host === undefined) {
        return writeJson(response, 400, jsonBody("BadRequest", "An HTTP/1.1 request must have a Host header"))
      }
      current(request, response)
    })

    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        const onError = (cause: NodeJS.ErrnoException) => {
          const where = `${options.host ?? "0.0.0.0"}:${options.port}`
          resume(
            Effect.fail(
              new ListenError({
                message: cause.code === "EADDRINUSE"
                  ? `port ${options.port} is already in use (EADDRINUSE)`
                  : cause.code === "EACCES"
                  ? `port ${options.port} may not be bound by this user (EACCES)`
                  : `cannot listen on ${where}: ${cause.message}`,
                cause
              })
            )
          )
        }
        server.once("error", onError)
        server.listen(options, () => {
          server.off("error", onError)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          if (!server.listening) return resume(Effect.void)
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )

    const address = server.address()!
    return HttpServer.make({
      address: typeof address === "string"
        ? { _tag: "UnixAddress", path: address }
        : { _tag: "TcpAddress", hostname: address.address === "::" ? "0.0.0.0" : address.address, port: address.port },
      serve: (app, middleware) =>
        Effect.gen(function*() {
          current = yield* Effect.mapInputContext(
            NodeHttpServer.makeHandler(app, middleware!) as Effect.Effect<Listener>,
            requestRoot
          )
          yield* Effect.addFinalizer(() =>
            Effect.async<void>((resume) => {
              current = unavailable("stopping")
              // Stop accepting; keep-alive connections that are idle are closed, busy ones finish their request.
              server.close()
              server.closeIdleConnections()
              const done = (cutOff: number) => {
                clearTimeout(timer)
                drained = undefined
                // An operator learns that requests were cut off; a stop that waited for none says nothing.
                resume(
                  cutOff === 0 ? Effect.void : Effect.logWarning(
                    `Shutdown: ${cutOff} request(s) still in flight after ${drainTimeoutMs / 1000} s are cut off`
                  )
                )
              }
              const timer = setTimeout(() => done(inFlight), drainTimeoutMs)
              drained = () => done(0)
              if (inFlight === 0) done(0)
            })
          )
        })
    })
  }).pipe(Effect.provideService(IncomingMessage.MaxBodySize, Option.some(FileSystem.Size(10 * 1024 * 1024))))

const gatedLayer = (evaluate: () => http.Server, options: net.ListenOptions) =>
  Layer.mergeAll(
    Layer.scoped(HttpServer.HttpServer, Effect.suspend(() => makeGated(evaluate(), options))),
    NodeHttpServer.layerContext
  )

export const HttpServerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (config.trustProxy) {
    return gatedLayer(
      () => http.createServer({ requireHostHeader: false, ServerResponse: SettledResponse }),
      { port: config.port, host: config.host }
    )
      .pipe(
        Layer.merge(Layer.succeed(ServerCertificate, { cert: null })),
        Layer.merge(SelfCalls.Default)
      )
  }
  const certificate = yield* loadOrCreateCertificate({
    dataDir: config.dataDir,
    certFile: Option.getOrUndefined(config.tlsCertFile),
    keyFile: Option.getOrUndefined(config.tlsKeyFile)
  })
  return gatedLayer(() => makeHttpsServer(certificate), { port: config.port, host: config.host }).pipe(
    Layer.merge(Layer.succeed(ServerCertificate, { cert: certificate.cert })),
    Layer.merge(SelfCalls.Default)
  )
}))
