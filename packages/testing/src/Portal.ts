/**
 * Helpers for tests of the admin portal: an operator created straight through the service, a login
 * over HTTP that returns the session cookie and CSRF token, and a tiny client that sends both (and the
 * server's own `Origin`) with every portal call.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Operators } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

/** A new active operator with this password, an admin unless told (audited as made by the CLI). */
export const createOperator = (email: string, password: string, role: "admin" | "viewer" = "admin") =>
  Effect.flatMap(
    Operators,
    (operators) => operators.create(email, Redacted.make(password), { operator: null, address: null, via: "cli" }, role)
  ).pipe(Effect.map(({ operator }) => operator))

export interface PortalReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  /** The parsed JSON body, or undefined when the body is not JSON. */
  readonly body: any
}

export interface PortalLogin {
  /** `pb_portal_session=<token>`, as a `Cookie` header sends it. */
  readonly cookie: string
  readonly csrfToken: string
  /** The whole `Set-Cookie` header of the login. */
  readonly setCookie: string
  readonly reply: PortalReply
}

export interface PortalRequestOptions {
  readonly json?: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** Leave out the CSRF header (or send this value instead). */
  readonly csrf?: string | null
  readonly cookie?: string | null
}

/** Sends one request to the server at `baseUrl` and reads the whole reply. */
export const portalRequest = (
  baseUrl: string,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  options: PortalRequestOptions & { readonly defaults?: { cookie: string; csrfToken: string } } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(`${baseUrl}${path}`)
    const cookie = options.cookie === undefined ? options.defaults?.cookie : options.cookie
    const csrf = options.csrf === undefined ? options.defaults?.csrfToken : options.csrf
    if (cookie !== undefined && cookie !== null) request = HttpClientRequest.setHeader(request, "cookie", cookie)
    if (csrf !== undefined && csrf !== null) request = HttpClientRequest.setHeader(request, "x-csrf-token", csrf)
    if (options.headers !== undefined) request = HttpClientRequest.setHeaders(request, options.headers)
    if (options.json !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, options.json)
    const response = yield* client.execute(request)
    const text = yield* response.text
    let body: any = undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, text, body } satisfies PortalReply
  }).pipe(Effect.scoped, Effect.orDie)

/** Logs in; fails the effect (a defect) unless the login succeeds. */
export const portalLogin = (baseUrl: string, email: string, password: string) =>
  Effect.gen(function*() {
    const reply = yield* portalRequest(baseUrl, "POST", "/portal/api/login", { json: { email, password } })
    if (reply.status !== 200) return yield* Effect.dieMessage(`login failed: ${reply.status} ${reply.text}`)
    const setCookie = reply.headers["set-cookie"] ?? ""
    const cookie = setCookie.split(";")[0]!
    return { cookie, csrfToken: reply.body.csrfToken as string, setCookie, reply } satisfies PortalLogin
  })

/** A client of the portal's API with a logged-in session: every call carries the cookie and the CSRF token. */
export const portalClient = (baseUrl: string, login: Pick<PortalLogin, "cookie" | "csrfToken">) => {
  const call =
    (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE") => (path: string, options?: PortalRequestOptions) =>
      portalRequest(baseUrl, method, path, { ...options, defaults: login })
  return { get: call("GET"), post: call("POST"), put: call("PUT"), patch: call("PATCH"), delete: call("DELETE") }
}
