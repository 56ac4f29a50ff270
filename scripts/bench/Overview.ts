/**
 * `npm run bench:overview`: the portal overview's routes over a deployment of 10,000 users and 40,000 connections.
 *
 * A real server (the test harness's: embedded PostgreSQL, or a fresh database on `DATABASE_URL`'s server) is
 * filled with bulk SQL: 5 apps, 10,000 users, four connections each (2% waiting for reauthorization, 1% with a
 * failed sync, 0.5% rate limited, 3% behind on sync), 500 quarantined records, 25 webhook endpoints (failing,
 * paused, disabled and healthy ones) with 20,000 delivered and 2,000 pending deliveries. Then, after `analyze`,
 * each overview route is called as the page calls it (the counts, and the first page of 25 of each list), across
 * all apps and for one app: `BENCH_RUNS` times (default 30) after 3 warm-up calls, and the median and the 90th
 * percentile of the answer's time are printed in milliseconds.
 */
import { SqlClient } from "@effect/sql"
import { createOperator, makeTestServer, portalClient, portalLogin, TestServer } from "@pulsebridge/testing"
import { databaseKind } from "@pulsebridge/testing/TestDatabase"
import * as Effect from "effect/Effect"

const runs = Number(process.env.BENCH_RUNS ?? 30)
const users = 10_000
const apps = 5

const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const started = Date.now()
  yield* sql`
    insert into apps (id, name)
    select gen_random_uuid(), 'Bench app ' || i from generate_series(1, ${apps}) i
  `
  yield* sql`
    insert into users (id, app_id, external_user_id, locale, timezone, created_at)
    select gen_random_uuid(), a.id, 'bench-' || i, 'en-US', 'UTC', now() - (i) * interval '1 second'
    from generate_series(1, ${users}) i
    join (select id, row_number() over (order by name) - 1 as n from apps) a on a.n = i % ${apps}
  `
  // Four connections a user; every 50th connection waits for reauthorization.
  yield* sql`
    insert into connections (id, app_id, user_id, provider, provider_user_id, status, status_reason, created_at)
    select gen_random_uuid(), u.app_id, u.id, p.provider, 'p-' || u.external_user_id,
      case when (hashtext(u.external_user_id || p.provider) & 2147483647) % 50 = 0 then 'Reauthorize' else 'Active' end,
      case when (hashtext(u.external_user_id || p.provider) & 2147483647) % 50 = 0 then 'Access was revoked' end,
      u.created_at
    from users u cross join unnest(array['Fitbit', 'Garmin', 'WHOOP', 'Oura']) as p(provider)
  `
  // Sync states by a hash of the connection: 1% Error, 0.5% RateLimited, 3% behind (30 to 100 hours), else recent.
  yield* sql`
    insert into sync_state (connection_id, state, last_synced_at, last_error, rate_limited_until, updated_at)
    select c.id,
      case when h < 100 then 'Error' when h < 150 then 'RateLimited' else 'Idle' end,
      case when h >= 150 and h < 450 then now() - (30 + h % 70) * interval '1 hour'
        else now() - (h % 120) * interval '1 minute' end,
      case when h < 100 then 'The provider answered 500' end,
      case when h >= 100 and h < 150 then now() + (h % 60) * interval '1 minute' end,
      now() - (h % 600) * interval '1 minute'
    from (select id, (hashtext(id::text) & 2147483647) % 10000 as h from connections) c
  `
  yield* sql`
    insert into quarantined_records (connection_id, user_id, provider, kind, record_key, provider_record_id, reason,
      raw_json, first_seen_at, last_seen_at)
    select c.id, c.user_id, c.provider, 'dailyActivity', 'rec-' || n, 'rec-' || n, 'steps is not a number', '{}',
      now() - (n) * interval '1 hour', now() - (n) * interval '1 minute'
    from (select id, user_id, provider, row_number() over (order by id) as n from connections limit 500) c
  `
  // Five endpoints an app: failing, paused, disabled, and two healthy.
  yield* sql`
    insert into webhook_endpoints (id, app_id, url, enabled, disabled_reason, secret_sealed, failing_since,
      paused_until, failure_streak, created_at, updated_at)
    select gen_random_uuid(), a.id, 'https://hooks.example.com/' || a.id || '/' || k, k <> 3,
      case when k = 3 then 'Failing for 5 days' end, 'sealed',
      case when k in (1, 2) then now() - (k) * interval '1 hour' end,
      case when k = 2 then now() + interval '10 minutes' end,
      case when k in (1, 2) then 6 else 0 end, now() - interval '30 days', now() - interval '1 day'
    from apps a cross join generate_series(1, 5) k
  `
  yield* sql`
    insert into webhook_events (id, app_id, type, payload, created_at)
    select 'evt_bench_' || i, e.app_id, 'connection.updated', '{}'::jsonb, now() - (i * 10) * interval '1 second'
    from generate_series(1, 22000) i
    join (select id, app_id, row_number() over (order by id) - 1 as n from webhook_endpoints) e on e.n = i % 25
  `
  yield* sql`
    insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, last_status_code, last_error,
      last_attempt_at, next_attempt_at, created_at, completed_at)
    select gen_random_uuid(), e.id, 'evt_bench_' || i, case when i <= 2000 then 'Pending' else 'Delivered' end, 1,
      case when i <= 2000 then 500 else 200 end, case when i <= 2000 then 'The endpoint answered 500' end,
      now() - (i * 10) * interval '1 second', case when i <= 2000 then now() + interval '1 minute' end,
      now() - (i * 10) * interval '1 second', case when i > 2000 then now() - (i * 10) * interval '1 second' end
    from generate_series(1, 22000) i
    join (select id, row_number() over (order by id) - 1 as n from webhook_endpoints) e on e.n = i % 25
  `
  yield* sql`analyze`
  const [counted] = yield* sql<{ users: number; connections: number }>`
    select (select count(*)::int from users) as users, (select count(*)::int from connections) as connections
  `
  return { ...counted!, seconds: (Date.now() - started) / 1000 }
})

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const program = Effect.gen(function*() {
  const seeded = yield* seed
  const sql = yield* SqlClient.SqlClient
  const [app] = yield* sql<{ id: string }>`select id from apps order by name limit 1`
  const { baseUrl } = yield* TestServer
  const email = "bench@example.com"
  const password = "a bench operator's password"
  yield* createOperator(email, password)
  const client = portalClient(baseUrl, yield* portalLogin(baseUrl, email, password))

  const routes = [
    "/portal/api/overview",
    ...["active", "reauthorize", "sync-error", "rate-limited", "behind"].map((kind) =>
      `/portal/api/overview/connections?kind=${kind}&limit=25`
    ),
    "/portal/api/overview/quarantine?limit=25",
    ...["failing", "paused", "disabled", "backlog"].map((kind) =>
      `/portal/api/overview/webhook-endpoints?kind=${kind}&limit=25`
    )
  ]
  const time = (path: string) =>
    Effect.gen(function*() {
      const started = performance.now()
      const reply = yield* client.get(path)
      const ms = performance.now() - started
      if (reply.status !== 200) return yield* Effect.dieMessage(`${path}: ${reply.status} ${reply.text}`)
      return { ms, rows: Array.isArray(reply.body.data) ? reply.body.data.length : undefined }
    })

  console.log(
    `${databaseKind() === "postgres" ? "PostgreSQL" : "PGlite"}: ${seeded.users} users, ${seeded.connections} ` +
      `connections in ${apps} apps, seeded in ${seeded.seconds.toFixed(1)} s; ${runs} calls a route`
  )
  console.log("| Route | Scope | Rows | Median ms | p90 ms |")
  console.log("|---|---|---|---|---|")
  for (const scope of ["all apps", "one app"] as const) {
    for (const route of routes) {
      const path = scope === "all apps" ? route : `${route}${route.includes("?") ? "&" : "?"}app=${app!.id}`
      for (let i = 0; i < 3; i++) yield* time(path)
      const results = []
      for (let i = 0; i < runs; i++) results.push(yield* time(path))
      const sorted = results.map((r) => r.ms).sort((a, b) => a - b)
      const shown = route.replace("/portal/api/overview", "overview").replace("&limit=25", "").replace("?limit=25", "")
      console.log(
        `| \`${shown}\` | ${scope} | ${results[0]!.rows ?? "counts"} | ${percentile(sorted, 0.5).toFixed(1)} | ${
          percentile(sorted, 0.9).toFixed(1)
        } |`
      )
    }
  }
})

Effect.runPromise(
  program.pipe(Effect.provide(makeTestServer({ webhookDelivery: false })), Effect.scoped)
).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
