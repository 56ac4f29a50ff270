/**
 * The OAuth clients of the MCP authorization server: dynamic client registration (RFC 7591: public clients
 * only, `token_endpoint_auth_method: none`) and client ID metadata documents (a `client_id` that is an https
 * URL naming the client's metadata, fetched here). A document is fetched with a timeout and a size bound,
 * over https only, without following redirects, never from a private, loopback or link-local address (except
 * in sandbox mode, where the server's own certificate is trusted too), and kept within its HTTP cache lifetime
 * (at most a day, at least a minute).
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as https from "node:https"
import * as net from "node:net"
import { guardedLookup, isInternalAddress, isLoopbackHost, unbracket } from "../../events/Addresses.js"
import { ServerCertificate } from "../../platform/HttpServer.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import { clientSecureContext } from "../../platform/Tls.js"
import type { ClientRow } from "./OAuthRepo.js"
import { OAuthRepo } from "./OAuthRepo.js"
import { MaxUrlLength, McpClientIdPrefix, newSecret, redirectUriProblem } from "./Rules.js"

/** A registration or a metadata document refused (RFC 7591 `invalid_client_metadata` / `invalid_redirect_uri`). */
export class ClientMetadataRefused extends Data.TaggedError("ClientMetadataRefused")<{
  readonly error: "invalid_client_metadata" | "invalid_redirect_uri"
  readonly message: string
}> {}

/** No client by that id: not registered here, and not a metadata document that could be fetched and read. */
export class ClientUnknown extends Data.TaggedError("ClientUnknown")<{ readonly message: string }> {}

export const MaxRedirectUris = 10
export const MaxMetadataBytes = 5 * 1024
export const MetadataTimeoutMs = 5_000
const minCacheSeconds = 60
const maxCacheSeconds = 24 * 60 * 60

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))

/** The client metadata PulseBridge reads (RFC 7591 2); other fields are ignored. */
export const ClientMetadata = Schema.Struct({
  client_id: Schema.optional(Schema.String),
  redirect_uris: Schema.Array(Text(MaxUrlLength)).pipe(Schema.minItems(1), Schema.maxItems(MaxRedirectUris)),
  client_name: Schema.optional(Text(200)),
  client_uri: Schema.optional(Text(MaxUrlLength)),
  token_endpoint_auth_method: Schema.optional(Schema.String),
  grant_types: Schema.optional(Schema.Array(Text(100)).pipe(Schema.maxItems(10))),
  response_types: Schema.optional(Schema.Array(Text(100)).pipe(Schema.maxItems(10)))
})
export type ClientMetadata = typeof ClientMetadata.Type

const decodeMetadata = Schema.decodeUnknownEither(ClientMetadata)

/** The client row a metadata document (or registration) describes, or why it is refused. */
export const clientOf = (
  metadata: unknown,
  clientId: string,
  kind: ClientRow["kind"]
): ClientMetadataRefused | Omit<ClientRow, "cachedUntil"> => {
  const decoded = decodeMetadata(metadata, { onExcessProperty: "ignore" })
  if (decoded._tag === "Left") {
    return new ClientMetadataRefused({
      error: "invalid_client_metadata",
      message: "the client metadata needs redirect_uris (1 to 10 URLs of at most 2,048 characters); client_name " +
        "at most 200 characters"
    })
  }
  const doc = decoded.right
  for (const uri of doc.redirect_uris) {
    const problem = redirectUriProblem(uri)
    if (problem !== undefined) return new ClientMetadataRefused({ error: "invalid_redirect_uri", message: problem })
  }
  const method = doc.token_endpoint_auth_method ?? "none"
  if (method !== "none") {
    return new ClientMetadataRefused({
      error: "invalid_client_metadata",
      message: "only public clients are supported: token_endpoint_auth_method must be none"
    })
  }
  if (doc.grant_types !== undefined && !doc.grant_types.includes("authorization_code")) {
    return new ClientMetadataRefused({
      error: "invalid_client_metadata",
      message: "grant_types must include authorization_code"
    })
  }
  if (doc.response_types !== undefined && !doc.response_types.every((type) => type === "code")) {
    return new ClientMetadataRefused({ error: "invalid_client_metadata", message: "response_types must be [\"code\"]" })
  }
  const clientUri = doc.client_uri !== undefined && /^https:\/\//i.test(doc.client_uri) ? doc.client_uri : null
  return {
    clientId,
    kind,
    clientName: doc.client_name?.trim() || (kind === "metadata" ? new URL(clientId).host : "An unnamed client"),
    clientUri,
    redirectUris: doc.redirect_uris
  }
}

/** Whether `clientId` names a metadata document: an https URL with a path (SEP-991). */
export const isMetadataUrl = (clientId: string): boolean => {
  if (clientId.length > MaxUrlLength || !clientId.startsWith("https://")) return false
  try {
    const url = new URL(clientId)
    return url.pathname !== "/" && url.hash === "" && url.username === "" && url.password === ""
  } catch {
    return false
  }
}

/** The lifetime of a fetched document from its `Cache-Control` (`max-age`; `no-store`/`no-cache`: the minimum). */
export const cacheSecondsOf = (cacheControl: string | undefined): number => {
  const value = (cacheControl ?? "").toLowerCase()
  if (value.includes("no-store") || value.includes("no-cache")) return minCacheSeconds
  const maxAge = /max-age=(\d+)/.exec(value)
  const seconds = maxAge === null ? minCacheSeconds * 5 : Number(maxAge[1])
  return Math.min(maxCacheSeconds, Math.max(minCacheSeconds, seconds))
}

interface Fetched {
  readonly status: number
  readonly cacheControl: string | undefined
  readonly body: string
}

export class McpClients extends Effect.Service<McpClients>()("@pulsebridge/server/McpClients", {
  effect: Effect.gen(function*() {
    const repo = yield* OAuthRepo
    const config = yield* ServerConfig
    const { cert } = yield* ServerCertificate
    const rules = { sandbox: config.sandbox, allowPrivate: config.sandbox }
    const secureContext = config.sandbox && cert !== null ? clientSecureContext(cert) : undefined

    /** GETs a metadata document once: no redirects, a timeout, at most `MaxMetadataBytes`. */
    const fetchDocument = (url: URL) =>
      Effect.async<Fetched, ClientUnknown>((resume) => {
        const host = unbracket(url.hostname)
        if (!rules.allowPrivate && net.isIP(host) !== 0 && (isLoopbackHost(host) || isInternalAddress(host))) {
          resume(Effect.fail(new ClientUnknown({ message: "the client's metadata URL names a private address" })))
          return
        }
        const refuse = (message: string) => resume(Effect.fail(new ClientUnknown({ message })))
        const request = https.get(url, {
          lookup: guardedLookup(rules),
          timeout: MetadataTimeoutMs,
          headers: { accept: "application/json" },
          ...(secureContext === undefined ? {} : { secureContext })
        }, (response) => {
          const chunks: Array<Buffer> = []
          let size = 0
          response.on("data", (chunk: Buffer) => {
            size += chunk.length
            if (size > MaxMetadataBytes) {
              request.destroy()
              refuse(`the client's metadata document is over ${MaxMetadataBytes} bytes`)
              return
            }
            chunks.push(chunk)
          })
          response.on("end", () =>
            resume(Effect.succeed({
              status: response.statusCode ?? 0,
              cacheControl: response.headers["cache-control"],
              body: Buffer.concat(chunks).toString("utf8")
            })))
          response.on("error", () => refuse("the client's metadata document could not be read"))
        })
        request.on("timeout", () => {
          request.destroy()
          refuse("the client's metadata document did not arrive in time")
        })
        request.on("error", () => refuse("the client's metadata document could not be fetched"))
        return Effect.sync(() => request.destroy())
      })

    /** Fetches, checks and caches the metadata document `clientId` names. */
    const fetchMetadata = (clientId: string, now: number) =>
      Effect.gen(function*() {
        const fetched = yield* fetchDocument(new URL(clientId))
        if (fetched.status !== 200) {
          return yield* new ClientUnknown({
            message: `the client's metadata document answered ${fetched.status} (redirects are not followed)`
          })
        }
        const parsed = yield* Effect.try({
          try: () => JSON.parse(fetched.body) as unknown,
          catch: () => new ClientUnknown({ message: "the client's metadata document is not JSON" })
        })
        if (
          typeof parsed !== "object" || parsed === null || (parsed as { client_id?: unknown }).client_id !== clientId
        ) {
          return yield* new ClientUnknown({
            message: "the client's metadata document must name its own URL as client_id"
          })
        }
        const client = clientOf(parsed, clientId, "metadata")
        if (client instanceof ClientMetadataRefused) {
          return yield* new ClientUnknown({ message: `the client's metadata document is refused: ${client.message}` })
        }
        const row: ClientRow = {
          ...client,
          cachedUntil: new Date(now + cacheSecondsOf(fetched.cacheControl) * 1000)
        }
        yield* repo.insertClient(row)
        return row
      })

    return {
      /** Registers a public client (RFC 7591) and answers its registration. */
      register: (metadata: unknown) =>
        Effect.gen(function*() {
          const client = clientOf(metadata, newSecret(McpClientIdPrefix), "registered")
          if (client instanceof ClientMetadataRefused) return yield* client
          yield* repo.insertClient({ ...client, cachedUntil: null })
          const now = yield* Clock.currentTimeMillis
          return {
            client_id: client.clientId,
            client_id_issued_at: Math.floor(now / 1000),
            client_name: client.clientName,
            ...(client.clientUri === null ? {} : { client_uri: client.clientUri }),
            redirect_uris: client.redirectUris,
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"]
          }
        }),

      /** The client `clientId` names: a registered one, or the (cached or fetched) metadata document. */
      resolve: (clientId: string) =>
        Effect.gen(function*() {
          if (clientId === "" || clientId.length > MaxUrlLength) {
            return yield* new ClientUnknown({ message: "unknown client_id" })
          }
          const now = yield* Clock.currentTimeMillis
          const stored = yield* repo.findClient(clientId)
          if (Option.isSome(stored)) {
            const row = stored.value
            if (row.kind === "registered") return row
            if (row.cachedUntil !== null && row.cachedUntil.getTime() > now) return row
          }
          if (!isMetadataUrl(clientId)) return yield* new ClientUnknown({ message: "unknown client_id" })
          return yield* fetchMetadata(clientId, now)
        })
    } as const
  }),
  dependencies: [OAuthRepo.Default]
}) {}
