/**
 * The MCP server over streamable HTTP at `/mcp`, outside the `/api/v1` contract. Stateless: every POST is
 * answered on its own (a new server and transport for the request, JSON answers rather than an event
 * stream), so any API process can answer any request and no session outlives its request. The user token
 * (`Authorization: Bearer pb_ut_...`) names the user whose data the tools read; without a valid one the
 * answer is 401 with `WWW-Authenticate: Bearer`. GET (a server-to-client stream) and DELETE (ending a
 * session) have nothing to serve here and answer 405. The body is read here, with a bound, so the SDK's
 * transport gets parsed JSON; protocol errors (an unreadable body, a wrong `Accept`) come back as JSON-RPC
 * errors with a 4xx status, as MCP clients expect.
 *
 * A JSON-RPC batch is refused (400): the 2025-06-18 revision of MCP dropped them, and one request carrying a
 * hundred tool calls would pass the rate limit as one. `Origin` is checked first, on every method, as the
 * transport's specification requires against DNS rebinding: a request without it (a client that is not a
 * browser), from the service's own origin (its public URL) or from an origin of `MCP_ALLOWED_ORIGINS` is
 * served; any other gets 403 before its credential is looked at.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { currentCaller } from "../access/Credentials.js"
import { UserTokenCheck } from "../access/UserTokenAuth.js"
import { jsonDepthOver, MaxJsonDepth } from "../http/BodyRules.js"
import { drain } from "../http/Drain.js"
import { ServerBases } from "../platform/ServerBases.js"
import { normalOrigin, ServerConfig } from "../platform/ServerConfig.js"
import { appIdPattern, McpAuthorization } from "./oauth/Authorization.js"
import { McpTokenPrefix } from "./oauth/Rules.js"
import { makeMcpServer } from "./Server.js"
import type { McpUser } from "./Tools.js"
import { McpTools } from "./Tools.js"

/** The largest request body: MCP requests are small (a tool name and a date range). */
export const MaxMcpBodyBytes = 256 * 1024

export const McpPath = "/mcp"

/** An app's MCP URL, for assistants that connect through OAuth (`oauth/`). */
export const McpAppPath = "/mcp/apps/:appId"

/** A JSON-RPC error with no request id, as the SDK's transport answers protocol errors. */
const rpcError = (status: number, code: number, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers })

const ParseErrorCode = -32700
const InvalidRequestCode = -32600
const ServerErrorCode = -32000

/** The media type of a header value, without parameters, in lower case. */
const mediaType = (value: string | undefined) => (value ?? "").split(";")[0]!.trim().toLowerCase()

/**
 * The body as parsed JSON, or the answer that refuses it. The headers the transport checks are checked here
 * first, with its answers, so that a body of the wrong type is refused for its type and not for its content.
 */
const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const accept = request.headers["accept"] ?? ""
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      yield* drain(request)
      return yield* Effect.fail(
        rpcError(406, ServerErrorCode, "Not Acceptable: Client must accept both application/json and text/event-stream")
      )
    }
    if (mediaType(request.headers["content-type"]) !== "application/json") {
      yield* drain(request)
      return yield* Effect.fail(
        rpcError(415, ServerErrorCode, "Unsupported Media Type: Content-Type must be application/json")
      )
    }
    const tooLarge = () => rpcError(413, ServerErrorCode, `The request body may be at most ${MaxMcpBodyBytes} bytes`)
    if (Number(request.headers["content-length"] ?? 0) > MaxMcpBodyBytes) {
      yield* drain(request)
      return yield* Effect.fail(tooLarge())
    }
    const text = yield* request.text.pipe(
      HttpServerRequest.withMaxBodySize(Option.some(MaxMcpBodyBytes)),
      Effect.mapError((error) =>
        String((error as { cause?: unknown }).cause).includes("maxBytes")
          ? tooLarge()
          : rpcError(400, ParseErrorCode, "Parse error: the request body could not be read")
      )
    )
    if (Buffer.byteLength(text) > MaxMcpBodyBytes) return yield* Effect.fail(tooLarge())
    const parsed = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => rpcError(400, ParseErrorCode, "Parse error: the request body is not JSON")
    })
    if (Array.isArray(parsed)) {
      return yield* Effect.fail(
        rpcError(
          400,
          InvalidRequestCode,
          "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 dropped them); " +
            "send one message per request"
        )
      )
    }
    if (typeof parsed !== "object" || parsed === null || jsonDepthOver(parsed, MaxJsonDepth)) {
      return yield* Effect.fail(
        rpcError(400, InvalidRequestCode, `Invalid Request: one JSON-RPC message, nested at most ${MaxJsonDepth} deep`)
      )
    }
    return parsed
  })

/** A web `Request` with the request's method and headers; the body goes to the transport already parsed. */
const webRequestOf = (request: HttpServerRequest.HttpServerRequest) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, value)
  }
  return new Request(`http://localhost${McpPath}`, { method: request.method, headers })
}

export const McpRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const tools = yield* McpTools
    const userToken = yield* UserTokenCheck
    const authorization = yield* McpAuthorization
    const config = yield* ServerConfig
    const bases = yield* ServerBases
    const allowedOrigins = new Set([new URL(bases.publicBase).origin, ...config.mcpAllowedOrigins])

    /** Refuses a request whose `Origin` is neither absent, nor the service's own, nor one the operator listed. */
    const checkOrigin = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const origin = request.headers["origin"]
      if (origin === undefined) return
      const normal = normalOrigin(origin)
      if (normal !== undefined && allowedOrigins.has(normal)) return
      yield* drain(request)
      return yield* Effect.fail(
        rpcError(
          403,
          ServerErrorCode,
          "Forbidden: requests from this Origin are not accepted (the operator lists the origins " +
            "allowed besides the service's own in MCP_ALLOWED_ORIGINS)"
        )
      )
    })

    const resourceMetadataOf = (appId?: string) =>
      `${bases.publicBase}/.well-known/oauth-protected-resource${appId === undefined ? "" : `${McpPath}/apps/${appId}`}`

    /** The 401 of an MCP route: `WWW-Authenticate` names the resource's metadata, and the error when a token was sent. */
    const unauthorized = (message: string, options: { readonly appId?: string; readonly invalidToken: boolean }) => {
      const challenge = [
        ...(options.appId === undefined ? ["realm=\"PulseBridge\""] : []),
        `resource_metadata="${resourceMetadataOf(options.appId)}"`,
        ...(options.invalidToken ? ["error=\"invalid_token\""] : [])
      ]
      return HttpServerResponse.unsafeJson({ _tag: "Unauthorized", message }, {
        status: 401,
        headers: { "www-authenticate": `Bearer ${challenge.join(", ")}` }
      })
    }

    /**
     * The caller of `/mcp`: a user token (every tool), or an MCP token issued through the API (its scopes). An
     * OAuth access token is bound to its app's MCP URL and refused here.
     */
    const callerOfMcp = Effect.gen(function*() {
      const caller = yield* currentCaller
      const credential = caller.forUserToken
      if (credential?.startsWith(McpTokenPrefix) === true) {
        const access = yield* authorization.access(credential)
        if (Option.isNone(access)) {
          return yield* Effect.fail(unauthorized("Invalid, expired or revoked MCP token", { invalidToken: true }))
        }
        if (access.value.resource !== null) {
          return yield* Effect.fail(
            unauthorized(`This token is for another MCP URL (${access.value.resource})`, { invalidToken: true })
          )
        }
        return { user: access.value.user, scopes: access.value.scopes as ReadonlySet<string> | undefined }
      }
      const user = yield* userToken.check.pipe(
        Effect.mapError((error) => unauthorized(error.message, { invalidToken: credential !== undefined }))
      )
      return { user, scopes: undefined }
    })

    /** The caller of an app's MCP URL: an OAuth access token bound to exactly that URL. */
    const callerOfApp = (appId: string) =>
      Effect.gen(function*() {
        const caller = yield* currentCaller
        const credential = caller.forUserToken
        if (credential === undefined) {
          return yield* Effect.fail(
            unauthorized("Missing credential: this MCP URL takes OAuth access tokens (docs/mcp.md)", {
              appId,
              invalidToken: false
            })
          )
        }
        const access = credential.startsWith(McpTokenPrefix)
          ? yield* authorization.access(credential)
          : Option.none()
        if (Option.isNone(access)) {
          return yield* Effect.fail(
            unauthorized("Invalid, expired or revoked access token: this MCP URL takes OAuth access tokens", {
              appId,
              invalidToken: true
            })
          )
        }
        if (access.value.resource !== authorization.resourceOf(appId)) {
          return yield* Effect.fail(
            unauthorized("This access token was issued for another MCP URL", { appId, invalidToken: true })
          )
        }
        return { user: access.value.user, scopes: access.value.scopes as ReadonlySet<string> | undefined }
      })

    const serve = <R>(
      authenticate: Effect.Effect<
        { readonly user: McpUser; readonly scopes: ReadonlySet<string> | undefined },
        HttpServerResponse.HttpServerResponse,
        R
      >
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        yield* checkOrigin
        const { scopes, user } = yield* authenticate.pipe(Effect.tapError(() => drain(request)))
        const body = yield* readBody(request)
        const run = Runtime.runPromise(yield* Effect.runtime<never>())
        const server = makeMcpServer(tools, Effect.succeed(Option.some(user)), run, scopes)
        // No session id generator: stateless.
        const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
        yield* Effect.promise(() => server.connect(transport))
        const response = yield* Effect.promise(() =>
          transport.handleRequest(webRequestOf(request), { parsedBody: body })
        ).pipe(Effect.ensuring(Effect.promise(() => server.close())))
        return HttpServerResponse.fromWeb(response)
      }).pipe(Effect.merge)

    const post = serve(callerOfMcp)

    const postApp = Effect.gen(function*() {
      const { appId } = yield* HttpRouter.params
      const id = (appId ?? "").toLowerCase()
      if (!appIdPattern.test(id)) {
        return HttpServerResponse.unsafeJson({ _tag: "NotFound", message: "No app has this MCP URL" }, { status: 404 })
      }
      return yield* serve(callerOfApp(id))
    })

    const notAllowed = Effect.zipRight(
      checkOrigin,
      Effect.succeed(
        rpcError(405, ServerErrorCode, "Method not allowed: this server is stateless; send requests with POST", {
          allow: "POST"
        })
      )
    ).pipe(Effect.merge)

    yield* router.post(McpPath, post)
    yield* router.get(McpPath, notAllowed)
    yield* router.del(McpPath, notAllowed)
    yield* router.post(McpAppPath, postApp)
    yield* router.get(McpAppPath, notAllowed)
    yield* router.del(McpAppPath, notAllowed)
  })
)
