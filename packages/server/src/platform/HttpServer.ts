/**
 * The listener and the outgoing HTTP client. The listener speaks TLS on `PORT` (plain HTTP is
 * refused on the same port), or plain HTTP behind a TLS-terminating proxy (`TRUST_PROXY=true`).
 * The client for provider calls trusts the public CAs and this server's own certificate, which
 * the sandbox providers mounted on this server present.
 */
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as http from "node:http"
import * as tls from "node:tls"
import { ServerConfig } from "./ServerConfig.js"
import { loadOrCreateCertificate, makeHttpsServer } from "./Tls.js"

/** The certificate this server presents, so it can call itself (the sandbox providers). */
export class ServerCertificate extends Context.Tag("@pulsebridge/server/ServerCertificate")<ServerCertificate, {
  readonly cert: string | null
}>() {}

export const ProviderHttpClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { cert } = yield* ServerCertificate
  const ca = cert === null ? undefined : [...tls.rootCertificates, cert]
  return NodeHttpClient.layerWithoutAgent.pipe(
    Layer.provide(NodeHttpClient.makeAgentLayer(ca === undefined ? {} : { ca }))
  )
}))

export const HttpServerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (config.trustProxy) {
    return NodeHttpServer.layer(() => http.createServer(), { port: config.port, host: config.host }).pipe(
      Layer.merge(Layer.succeed(ServerCertificate, { cert: null }))
    )
  }
  const certificate = yield* loadOrCreateCertificate({
    dataDir: config.dataDir,
    certFile: Option.getOrUndefined(config.tlsCertFile),
    keyFile: Option.getOrUndefined(config.tlsKeyFile)
  })
  return NodeHttpServer.layer(() => makeHttpsServer(certificate), { port: config.port, host: config.host }).pipe(
    Layer.merge(Layer.succeed(ServerCertificate, { cert: certificate.cert }))
  )
}))
