/**
 * `pulsebridge serve`: run the API server, in sandbox mode with `--sandbox`, and with `--json`
 * report where it listens as one JSON object.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpServer from "@effect/platform/HttpServer"
import { ServerBases, ServerConfig } from "@pulsebridge/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { consoleToStderr, printJson, reportFailure } from "../Output.js"
import { json } from "./Options.js"

/**
 * The server, with the simulators mounted when sandbox mode is on (`--sandbox` or `SANDBOX=true`), and the
 * meal-analyser simulator alone with `ANALYZER=sandbox` outside it. Loaded on demand: the other commands need
 * none of it (HTTP, the background runtime, the simulators).
 */
/** The server's composition, loaded only when `serve` runs (other commands start faster without it). */
const ServerLive = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => import("@pulsebridge/server/Main")), ({ ServeLive }) => ServeLive)
)

/**
 * With `--json` the server's own text (its banner, its logs) goes to stderr and stdout gets one object saying
 * where it listens, so a supervising script learns the address without parsing the banner.
 */
const serveJson = (config: Layer.Layer<ServerConfig, unknown>) =>
  Effect.gen(function*() {
    const context = yield* consoleToStderr(Layer.build(ServerLive.pipe(Layer.provideMerge(config))))
    const settings = Context.get(context, ServerConfig)
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : settings.port
    // The URL the banner prints, `PUBLIC_URL`'s default included.
    const url = Context.get(context, ServerBases).publicBase
    const database = Option.isSome(settings.databaseUrl) ? "postgres" : "embedded"
    yield* printJson({ status: "running", url, port, database, pid: process.pid })
    return yield* Effect.never
  }).pipe(Effect.scoped)

export const serve = Command.make(
  "serve",
  {
    sandbox: Options.boolean("sandbox").pipe(Options.withDescription("Run in sandbox mode (SANDBOX=true)")),
    json
  },
  ({ json, sandbox }) => {
    const config = sandbox ? ServerConfig.DefaultWith({ sandbox: true }) : ServerConfig.Default
    return (json ? serveJson(config) : Layer.launch(ServerLive.pipe(Layer.provide(config)))).pipe(
      reportFailure(json)
    )
  }
).pipe(Command.withDescription("Run the API server (what `npm start` runs)"))
