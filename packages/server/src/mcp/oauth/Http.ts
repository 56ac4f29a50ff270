/**
 * The MCP authorization server's routes, outside the `/api/v1` contract (their wire formats are OAuth's, not
 * the API's): protected resource metadata (RFC 9728) for `/mcp` and each app's MCP URL, authorization server
 * metadata (RFC 8414), dynamic client registration (RFC 7591), the authorization endpoint, the consent page,
 * the token endpoint and revocation (RFC 7009); in sandbox mode, the demo sign-in page of an app. Bodies are
 * read here with a bound; token, registration and revocation errors are RFC 6749 JSON bodies.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { drain } from "../../http/Drain.js"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import { McpAuthorization } from "./Authorization.js"
import { McpClients } from "./Clients.js"
import { consentPage, demoSignInPage, errorPage } from "./Pages.js"
import { McpScopes } from "./Rules.js"
import { SandboxSignIn } from "./SandboxSignIn.js"

/** The largest body of an OAuth request (a form or a registration). */
export const MaxOAuthBodyBytes = 16 * 1024

const noStore = { "cache-control": "no-store", pragma: "no-cache" } as const

const oauthJson = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status, headers: noStore })

const oauthError = (error: string, description: string, status = 400) =>
  oauthJson({ error, error_description: description }, status)

/** The body as text, at most `MaxOAuthBodyBytes`; failing with the answer that refuses it. */
const readText = (request: HttpServerRequest.HttpServerRequest, expected: string) =>
  Effect.gen(function*() {
    const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
    if (type !== expected) {
      yield* drain(request)
      return yield* Effect.fail(oauthError("invalid_request", `the body must be ${expected}`))
    }
    if (Number(request.headers["content-length"] ?? 0) > MaxOAuthBodyBytes) {
      yield* drain(request)
      return yield* Effect.fail(oauthError("invalid_request", `the body may be at most ${MaxOAuthBodyBytes} bytes`))
    }
    const text = yield* request.text.pipe(
      HttpServerRequest.withMaxBodySize(Option.some(MaxOAuthBodyBytes)),
      Effect.mapError(() =>
        oauthError("invalid_request", `the body could not be read (at most ${MaxOAuthBodyBytes} bytes)`)
      )
    )
    return text
  })

/** Form or query parameters; a parameter given twice is refused (RFC 6749 3.1). */
const paramsOf = (search: URLSearchParams): Record<string, string> | string => {
  const params: Record<string, string> = {}
  for (const [name, value] of search) {
    if (name in params) return name
    params[name] = value
  }
  return params
}

const readForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const text = yield* readText(request, "application/x-www-form-urlencoded")
    const params = paramsOf(new URLSearchParams(text))
    if (typeof params === "string") {
      return yield* Effect.fail(oauthError("invalid_request", `the parameter ${params.slice(0, 50)} is repeated`))
    }
    return params
  })

const queryOf = (request: HttpServerRequest.HttpServerRequest) =>
  paramsOf(new URL(request.url, "https://localhost").searchParams)

const redirect = (location: string) =>
  HttpServerResponse.empty({ status: 302, headers: { location, ...noStore, "referrer-policy": "no-referrer" } })

export const OAuthRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const authorization = yield* McpAuthorization
    const clients = yield* McpClients
    const config = yield* ServerConfig
    const { publicBase } = yield* ServerBases
    const scopes = [...McpScopes]

    const serverMetadata = {
      issuer: publicBase,
      authorization_endpoint: `${publicBase}/oauth/authorize`,
      token_endpoint: `${publicBase}/oauth/token`,
      registration_endpoint: `${publicBase}/oauth/register`,
      revocation_endpoint: `${publicBase}/oauth/revoke`,
      scopes_supported: scopes,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${publicBase}/docs`
    }

    yield* router.get(
      "/.well-known/oauth-authorization-server",
      Effect.succeed(HttpServerResponse.unsafeJson(serverMetadata))
    )

    // `/mcp` takes user tokens and API-issued MCP tokens, which no authorization server issues: the metadata
    // names no authorization server (RFC 9728 makes the list optional).
    yield* router.get(
      "/.well-known/oauth-protected-resource",
      Effect.succeed(HttpServerResponse.unsafeJson({
        resource: `${publicBase}/mcp`,
        bearer_methods_supported: ["header"],
        scopes_supported: scopes,
        resource_name: "PulseBridge MCP server (user tokens and API-issued MCP tokens)",
        resource_documentation: `${publicBase}/docs`
      }))
    )

    yield* router.get(
      "/.well-known/oauth-protected-resource/mcp/apps/:appId",
      Effect.gen(function*() {
        const { appId } = yield* HttpRouter.params
        const id = (appId ?? "").toLowerCase()
        const app = yield* authorization.app(id)
        if (Option.isNone(app)) {
          return HttpServerResponse.unsafeJson({ _tag: "NotFound", message: "No app has this MCP URL" }, {
            status: 404
          })
        }
        return HttpServerResponse.unsafeJson({
          resource: authorization.resourceOf(id),
          authorization_servers: [publicBase],
          bearer_methods_supported: ["header"],
          scopes_supported: scopes,
          resource_name: `${app.value.name} on PulseBridge`,
          resource_documentation: `${publicBase}/docs`
        })
      })
    )

    yield* router.post(
      "/oauth/register",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const text = yield* readText(request, "application/json")
        const body = yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: () => oauthError("invalid_client_metadata", "the body is not JSON")
        })
        return yield* clients.register(body).pipe(
          Effect.map((registered) => oauthJson(registered, 201)),
          Effect.catchTag("ClientMetadataRefused", (refused) =>
            Effect.succeed(oauthError(refused.error, refused.message)))
        )
      }).pipe(Effect.merge)
    )

    yield* router.get(
      "/oauth/authorize",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const params = queryOf(request)
        if (typeof params === "string") {
          return errorPage(`The authorization request repeats the parameter ${params.slice(0, 50)}.`, 400)
        }
        return yield* authorization.authorize(params).pipe(
          Effect.map(redirect),
          Effect.catchTag("AuthorizePageError", (error) =>
            Effect.succeed(errorPage(error.message, error.status)))
        )
      })
    )

    yield* router.get(
      "/oauth/consent",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const params = queryOf(request)
        const assertion = typeof params === "string" ? undefined : params.assertion
        if (assertion === undefined || assertion.length > 200) {
          return errorPage("This page needs the sign-in link the app sent you here with.", 400)
        }
        return yield* authorization.consent(assertion).pipe(
          Effect.map(consentPage),
          Effect.catchTag("AuthorizePageError", (error) => Effect.succeed(errorPage(error.message, error.status)))
        )
      })
    )

    yield* router.post(
      "/oauth/consent",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request).pipe(
          Effect.mapError(() => errorPage("The consent form could not be read.", 400))
        )
        const { assertion, csrf, decision } = form
        if (
          assertion === undefined || csrf === undefined || assertion.length > 200 || csrf.length > 200 ||
          (decision !== "approve" && decision !== "deny")
        ) {
          return errorPage("The consent form is incomplete.", 400)
        }
        return yield* authorization.decide(assertion, csrf, decision === "approve").pipe(
          Effect.map(redirect),
          Effect.catchTag("AuthorizePageError", (error) => Effect.succeed(errorPage(error.message, error.status)))
        )
      }).pipe(Effect.merge)
    )

    yield* router.post(
      "/oauth/token",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request)
        return yield* authorization.token(form).pipe(
          Effect.map((tokens) => oauthJson(tokens)),
          Effect.catchTag(
            "OAuthProtocolError",
            (error) => Effect.succeed(oauthError(error.error, error.message, error.status))
          )
        )
      }).pipe(Effect.merge)
    )

    yield* router.post(
      "/oauth/revoke",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request)
        if (form.token === undefined) return oauthError("invalid_request", "token is required")
        if (form.token.length <= 200) yield* authorization.revoke(form.token, form.client_id)
        return HttpServerResponse.empty({ status: 200, headers: noStore })
      }).pipe(Effect.merge)
    )

    if (config.sandbox) {
      const demo = yield* SandboxSignIn
      yield* router.get(
        "/sandbox/mcp-sign-in",
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const params = queryOf(request)
          const signed = typeof params === "string" ? undefined : params.pb_request
          if (signed === undefined) return errorPage("This page needs the pb_request of an authorization.", 400)
          return yield* demo.page(signed).pipe(
            Effect.map(({ appName, users }) => demoSignInPage(appName, signed, users)),
            Effect.catchTag("AssertionRefused", (error) => Effect.succeed(errorPage(error.message, 400)))
          )
        })
      )
      yield* router.post(
        "/sandbox/mcp-sign-in",
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const form = yield* readForm(request).pipe(
            Effect.mapError(() => errorPage("The sign-in form could not be read.", 400))
          )
          if (form.pb_request === undefined || form.userId === undefined) {
            return errorPage("The sign-in form is incomplete.", 400)
          }
          return yield* demo.signIn(form.pb_request, form.userId).pipe(
            Effect.map(({ redirectUrl }) => redirect(redirectUrl)),
            Effect.catchTag("AssertionRefused", (error) => Effect.succeed(errorPage(error.message, 400)))
          )
        }).pipe(Effect.merge)
      )
    }
  })
)
