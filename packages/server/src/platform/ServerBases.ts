/**
 * The base URLs of this server: the public one (what browsers and providers see; `PUBLIC_URL`,
 * else localhost on the listening port) and the internal one (this process calling itself,
 * e.g. the sandbox providers' token endpoints).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ServerConfigShape } from "./ServerConfig.js"
import { ServerConfig } from "./ServerConfig.js"

export class ServerBases extends Context.Tag("@pulsebridge/server/ServerBases")<ServerBases, {
  readonly publicBase: string
  readonly internalBase: string
}>() {
  static readonly Default = Layer.effect(
    ServerBases,
    Effect.gen(function*() {
      const config = yield* ServerConfig
      const server = yield* HttpServer.HttpServer
      const port = server.address._tag === "TcpAddress" ? server.address.port : config.port
      return basesOf(config, port)
    })
  )

  /** Without a listener (the operator CLI): the configured port, where the server of this configuration listens. */
  static readonly FromConfig = Layer.effect(
    ServerBases,
    Effect.map(ServerConfig, (config) => basesOf(config, config.port))
  )
}

const basesOf = (config: ServerConfigShape, port: number) => {
  const scheme = config.trustProxy ? "http" : "https"
  return {
    publicBase: Option.getOrElse(config.publicUrl, () => `${scheme}://localhost:${port}`).replace(/\/+$/, ""),
    internalBase: `${scheme}://127.0.0.1:${port}`
  }
}
