/**
 * The floor of the benchmark's request path: what the stack PulseBridge is built on costs by itself. A server made
 * of nothing but an `HttpApi` with the one endpoint `GET /api/v1/users/:id`, a bearer security middleware, served
 * by `@effect/platform-node` over `node:https`, and `@effect/sql-pg` running the baseline's two statements (the API
 * key by its hash, then the user row), answering the same JSON through the contract's `User` schema. No request
 * log, metrics, rate limits, deadline, body checks or compression: the distance from this server to the
 * `node:https` + `pg` baseline is the framework's, and the distance from PulseBridge to this server is
 * PulseBridge's own.
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpMiddleware,
  HttpServer
} from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { User, UserId } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as String from "effect/String"
import * as crypto from "node:crypto"
import * as https from "node:https"
import type pg from "pg"

class CurrentAppId extends Context.Tag("EffectFloor/CurrentAppId")<CurrentAppId, string>() {}

class Bearer extends HttpApiMiddleware.Tag<Bearer>()("EffectFloor/Bearer", {
  failure: HttpApiError.Unauthorized,
  provides: CurrentAppId,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("users").add(
    HttpApiEndpoint.get("get", "/api/v1/users/:id")
      .setPath(Schema.Struct({ id: UserId }))
      .addSuccess(User)
      .addError(HttpApiError.NotFound)
  ).middleware(Bearer)
)

export interface EffectFloorOptions {
  readonly cert: string
  readonly key: string
  readonly pool: pg.PoolConfig
}

export interface EffectFloor {
  readonly port: number
  readonly close: () => Promise<void>
}

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex")

export const startEffectFloor = async (options: EffectFloorOptions): Promise<EffectFloor> => {
  const config = options.pool
  const SqlLive = PgClient.layer({
    ...(config.connectionString === undefined
      ? {
        host: config.host,
        port: config.port,
        database: config.database,
        username: config.user
      }
      : { url: Redacted.make(config.connectionString) }),
    maxConnections: config.max ?? 10,
    transformResultNames: String.snakeToCamel
  })

  const BearerLive = Layer.effect(
    Bearer,
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      return {
        bearer: (token) =>
          Effect.flatMap(
            sql<{ appId: string }>`select app_id from api_keys where key_hash = ${
              sha256(Redacted.value(token))
            } and revoked_at is null`.pipe(Effect.orDie),
            (rows) => rows.length === 0 ? Effect.fail(new HttpApiError.Unauthorized()) : Effect.succeed(rows[0]!.appId)
          )
      }
    })
  )

  const UsersLive = HttpApiBuilder.group(Api, "users", (handlers) =>
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      return handlers.handle("get", ({ path }) =>
        Effect.gen(function*() {
          const appId = yield* CurrentAppId
          const rows = yield* sql<Record<string, unknown>>`
            select id, app_id, external_user_id, status, locale, timezone, metadata, created_at, updated_at
            from users where id = ${path.id} and app_id = ${appId}
          `.pipe(Effect.orDie)
          if (rows.length === 0) return yield* new HttpApiError.NotFound()
          // As PulseBridge builds it: the row's values are already of the class's types.
          return new User(rows[0] as unknown as ConstructorParameters<typeof User>[0], true)
        }))
    }))

  let port = 0
  // Without spans, as PulseBridge serves when no exporter is set.
  const ServerLive = HttpApiBuilder.serve().pipe(
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(UsersLive), Layer.provide(BearerLive))),
    Layer.provideMerge(
      NodeHttpServer.layer(() => https.createServer({ cert: options.cert, key: options.key }), {
        port: 0,
        host: "127.0.0.1"
      })
    ),
    Layer.tap((context) =>
      Effect.sync(() => {
        const address = Context.get(context, HttpServer.HttpServer).address
        port = address._tag === "TcpAddress" ? address.port : 0
      })
    ),
    Layer.provide(SqlLive)
  )
  const runtime = ManagedRuntime.make(ServerLive)
  await runtime.runPromise(Effect.void)
  return { port, close: () => runtime.dispose() }
}
