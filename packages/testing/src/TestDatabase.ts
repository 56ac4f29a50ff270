/**
 * A database for tests: an in-memory PGlite served on a loopback port by default, or a fresh
 * database on the PostgreSQL of `DATABASE_URL` (created for the layer, dropped after it).
 */
import type { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import {
  MigratorLive,
  pgClientFromEndpoint,
  pgClientFromUrl,
  startEmbedded
} from "@pulsebridge/server/platform/Database"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import pg from "pg"

const adminQuery = (url: string, query: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(query)
    } finally {
      await client.end()
    }
  })

/** A fresh, empty database on the server of `url`; dropped when the scope closes. */
export const freshDatabase = (url: string) =>
  Effect.gen(function*() {
    const name = `pulsebridge_test_${crypto.randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      adminQuery(url, `create database ${name}`),
      () => adminQuery(url, `drop database if exists ${name} with (force)`).pipe(Effect.ignore)
    )
    const fresh = new URL(url)
    fresh.pathname = `/${name}`
    return fresh.toString()
  })

/** A client on an empty database (no migrations). */
export const TestPgClientLive: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const url = process.env["DATABASE_URL"]
    if (url !== undefined && url !== "") {
      return pgClientFromUrl(Redacted.make(yield* freshDatabase(url)))
    }
    return pgClientFromEndpoint(yield* startEmbedded(undefined))
  })
)

/** A migrated database. */
export const TestDatabaseLive = MigratorLive.pipe(Layer.provideMerge(TestPgClientLive))

export const databaseKind = (): "postgres" | "pglite" =>
  process.env["DATABASE_URL"] !== undefined && process.env["DATABASE_URL"] !== "" ? "postgres" : "pglite"
