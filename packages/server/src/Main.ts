/**
 * `serve`: the application (App.ts) over the configured database (migrated at start), with
 * structured logs, the first-start demo app and the start-up banner; nothing else.
 */
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { AppLive } from "./App.js"
import { Apps } from "./apps/Apps.js"
import { DatabaseLive } from "./platform/Database.js"
import { EnvVars } from "./platform/EnvVars.js"
import { HeapGrowthLive } from "./platform/HeapGrowth.js"
import { HttpServerLive } from "./platform/HttpServer.js"
import { logOutput } from "./platform/LogOutput.js"
import { ServerBases } from "./platform/ServerBases.js"
import { ProductionChecksLive, ServerConfig } from "./platform/ServerConfig.js"

/** On a database without any app, creates the demo app and prints its API key once. */
export const ensureDemoApp = Effect.gen(function*() {
  const apps = yield* Apps
  if ((yield* apps.count) > 0) return Option.none()
  const created = yield* apps.create("Demo app")
  return Option.some(created)
})

const Banner = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* ServerConfig
  const base = (yield* ServerBases).publicBase
  // Production mode never creates a demo app: an operator creates apps with the CLI.
  const demo = config.production ? Option.none() : yield* ensureDemoApp
  const lines = [
    "",
    `PulseBridge is running (${
      Option.isSome(config.databaseUrl) ? "PostgreSQL" : `embedded database in ${config.dataDir}`
    })`,
    `  API:      ${base}/api/v1`,
    `  Docs:     ${base}/docs`,
    `  OpenAPI:  ${base}/openapi.json`,
    `  Portal:   ${base}/portal`
  ]
  if (Option.isSome(demo)) {
    lines.push(
      "",
      `Created the demo app "${demo.value.app.name}" (id ${demo.value.app.id}).`,
      "Its API key is shown only this once; keep it:",
      `  ${demo.value.apiKey}`
    )
  }
  yield* Console.log(lines.join("\n") + "\n")
}))

/**
 * Structured logs: logfmt by default, JSON lines with `LOG_FORMAT=json`; level from `LOG_LEVEL`.
 * Every request's lines carry its `requestId`. Written to standard output a turn of the event loop at a time
 * (`platform/LogOutput.ts`).
 */
export const LoggingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const level = yield* Config.logLevel(EnvVars.logLevel).pipe(Config.withDefault(LogLevel.Info))
  const format = yield* Config.literal("logfmt", "json")(EnvVars.logFormat).pipe(Config.withDefault("logfmt" as const))
  return Layer.merge(logOutput(format), Logger.minimumLogLevel(level))
}))

/**
 * Everything `pulsebridge serve` runs, given a `ServerConfig`. Built in this order: the production checks, the
 * listener (a busy port fails here, before any migration; requests get 503 until the app serves), the database
 * and its migrations, then the application. Torn down in reverse: the app stops taking requests and drains those
 * in flight, the cluster hands its work back, the database closes, and the port is released.
 */
export const ServeLive = Banner.pipe(
  Layer.provideMerge(AppLive),
  Layer.provideMerge(ProviderRegistry.Default),
  Layer.provideMerge(DatabaseLive({ attach: false })),
  // The same layer value as the one inside AppLive, so it is built once, here, early.
  Layer.provideMerge(HttpServerLive),
  Layer.provideMerge(ProductionChecksLive),
  // Before anything allocates much: how far the heap grows before a full collection.
  Layer.provideMerge(HeapGrowthLive),
  Layer.provide(LoggingLive)
)
