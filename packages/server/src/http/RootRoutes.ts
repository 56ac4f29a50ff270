/**
 * The routes outside the contract that every deployment has: `/` names the service, its documents and
 * its MCP endpoint; `/health/live` says the process answers, `/health/ready` (and its alias `/health`)
 * whether this process can serve: its database answers, its migrations are applied and its cluster
 * runner is registered. Both are unauthenticated and cheap, for load balancers and orchestrators.
 */
import * as Sharding from "@effect/cluster/Sharding"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { appliedMigrationId, newestMigrationId } from "../platform/Database.js"
import { ServerConfig } from "../platform/ServerConfig.js"

/** The database gets this long to answer a readiness probe. */
const probeTimeout = "2 seconds"

interface Check {
  readonly ok: boolean
  readonly message?: string
}

const failed = (message: string): Check => ({ ok: false, message })

const timedOut = (what: string) => () => Effect.succeed(failed(`${what} did not answer within ${probeTimeout}`))

export const RootRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const sharding = yield* Sharding.Sharding
    const config = yield* ServerConfig

    const database = sql`SELECT 1`.pipe(
      Effect.as<Check>({ ok: true }),
      Effect.timeoutFail({ duration: probeTimeout, onTimeout: () => "timeout" as const }),
      Effect.catchAll((error) =>
        Effect.succeed(
          error === "timeout" ? failed(`the database did not answer within ${probeTimeout}`) : failed(
            "the database is not reachable"
          )
        )
      )
    )

    const migrated = appliedMigrationId(sql).pipe(
      Effect.map((applied): Check =>
        applied >= newestMigrationId
          ? { ok: true }
          : failed(`migrations applied up to ${applied} of ${newestMigrationId}`)
      ),
      Effect.timeoutTo({ duration: probeTimeout, onSuccess: Effect.succeed, onTimeout: timedOut("the database") }),
      Effect.flatten,
      Effect.catchAll(() => Effect.succeed(failed("the migrations table cannot be read")))
    )

    // A worker's runner is registered in the cluster's runner table; `all` runs its single runner in memory, and
    // an API node (`ROLE=api`) runs none. Every role needs its sharding up and not shutting down.
    const runnerAddress = `${config.runnerHost}:${config.runnerPort}`
    const cluster = Effect.gen(function*() {
      if (yield* sharding.isShutdown) return failed("the cluster is shutting down")
      if (config.role !== "worker") return { ok: true } satisfies Check
      const rows = yield* sql<{ readonly healthy: boolean }>`
        SELECT healthy FROM cluster_runners WHERE address = ${runnerAddress}`
      return rows.length > 0 ? { ok: true } : failed(`the runner ${runnerAddress} is not registered`)
    }).pipe(
      Effect.timeoutTo({ duration: probeTimeout, onSuccess: Effect.succeed, onTimeout: timedOut("the cluster") }),
      Effect.flatten,
      Effect.catchAll(() => Effect.succeed(failed("the cluster runners cannot be read")))
    )

    const ready = Effect.gen(function*() {
      const checks = yield* Effect.all({ database, migrations: migrated, cluster }, { concurrency: "unbounded" })
      const missing = Object.values(checks).flatMap((check) => check.ok ? [] : [check.message ?? "not ready"])
      return missing.length === 0
        ? HttpServerResponse.unsafeJson({ status: "ok", checks })
        : HttpServerResponse.unsafeJson({
          _tag: "ServiceUnavailable",
          message: `not ready: ${missing.join("; ")}`,
          checks
        }, { status: 503 }).pipe(HttpServerResponse.setHeader("retry-after", "5"))
    })

    yield* router.get(
      "/",
      Effect.succeed(HttpServerResponse.unsafeJson({
        name: "PulseBridge",
        api: "/api/v1",
        docs: "/docs",
        openapi: "/openapi.json",
        mcp: "/mcp"
      }))
    )
    yield* router.get("/health/live", Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" })))
    yield* router.get("/health/ready", ready)
    yield* router.get("/health", ready)
  })
)
