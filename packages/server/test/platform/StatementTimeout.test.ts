/**
 * The statement timeout of the PostgreSQL client: a statement running past `STATEMENT_TIMEOUT_MS`
 * is cancelled by the server, one within it runs. PostgreSQL only (the embedded database runs one
 * statement at a time and cannot cancel it), so skipped without `DATABASE_URL`.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { pgClientFromUrl } from "../../src/platform/Database.js"

const url = process.env["DATABASE_URL"]

describe.skipIf(url === undefined || url === "")("statement timeout (PostgreSQL)", () => {
  it.live("cancels a statement that runs longer, and not one that ends in time", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const setting = yield* sql<{ statementTimeout: string }>`SHOW statement_timeout`
      expect(setting[0]?.statementTimeout).toBe("1s")
      yield* sql`SELECT pg_sleep(0.2)`
      const slow = yield* Effect.either(sql`SELECT pg_sleep(3)`)
      expect(slow._tag).toBe("Left")
      expect(String((slow as { left: { cause?: { code?: string } } }).left.cause?.code)).toBe("57014")
    }).pipe(Effect.provide(pgClientFromUrl(Redacted.make(url!), 1000))))
})
