/**
 * Serving a simulator (or any app) on its own loopback port inside a scope, for tests, benches
 * and standalone use; in sandbox mode the server mounts the apps instead.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Simulator, SimulatorControl } from "./Options.js"

export class SimulatorServeError extends Data.TaggedError("SimulatorServeError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface ServedApp {
  readonly baseUrl: string
  readonly port: number
  /** Stops listening now; otherwise the enclosing scope does. */
  readonly close: Effect.Effect<void>
}

/** Serves `app` over plain HTTP on 127.0.0.1 (`port` 0 or absent: a free port) until the scope closes. */
export const serveHttpApp = (
  app: HttpApp.Default,
  options: { readonly port?: number | undefined } = {}
): Effect.Effect<ServedApp, SimulatorServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const handler = yield* NodeHttpServer.makeHandler(app)
    const server = http.createServer(handler)
    yield* Effect.async<void, SimulatorServeError>((resume) => {
      const onError = (cause: unknown) =>
        resume(Effect.fail(new SimulatorServeError({ message: "could not listen", cause })))
      server.once("error", onError)
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", onError)
        resume(Effect.void)
      })
    })
    yield* Scope.addFinalizer(
      scope,
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    )
    const port = (server.address() as AddressInfo).port
    return { baseUrl: `http://127.0.0.1:${port}`, port, close: Scope.close(scope, Exit.void) }
  })

/**
 * Serves a simulator standalone; `baseUrl` of the result is where it listens. Unless
 * `keepBaseUrl`, the simulator's B becomes that origin, so the URLs it generates (consent form,
 * callbacks) point at it.
 */
export const serveSimulator = (
  sim: Simulator<SimulatorControl>,
  options: { readonly port?: number | undefined; readonly keepBaseUrl?: boolean | undefined } = {}
): Effect.Effect<ServedApp, SimulatorServeError, Scope.Scope> =>
  Effect.map(serveHttpApp(sim.app, options), (served) => {
    if (options.keepBaseUrl !== true) sim.control.setBaseUrl(served.baseUrl)
    return served
  })
