/**
 * The baseline of the benchmark: a minimal `node:https` server with plain `pg` and no Effect that does the same
 * database work as PulseBridge for the measured routes. `GET /api/v1/users/:id` looks the bearer API key up
 * by its SHA-256 hash and reads the user row; `POST /api/v1/users` does the same, then runs the upsert and the
 * token insert of the real `Users.create` in one transaction. `GET /api/v1/users/:id/connections/glucose` looks
 * the bearer user token up as `Users.authenticate` does, then runs the three queries of `HealthData.glucose`
 * (readings, events, calibrations) as they are, one after the other, and renames their snake_case columns in JS
 * as the server's SQL client does. Bodies are the same JSON, written with `JSON.stringify`; there is no logging,
 * routing library, schema or error catalogue.
 *
 * `POST /mcp` answers one MCP message only, the `tools/call` of `get_glucose_summary`, as the server's stateless
 * MCP endpoint answers it: the same token lookup, the same aggregate statement (`HealthDataRepo.glucoseDays`), the
 * same statistics computed in plain JS, and the JSON-RPC result with the summary as structured content and as text;
 * no SDK, no schema.
 *
 * The stronger baseline, `GET /strong/api/v1/users/:id/connections/glucose`, is the best hand-written read: the
 * same lookup and validation, then the three queries with the timestamps formatted as ISO text in SQL and the
 * contract's names as column aliases, so the rows go straight into `JSON.stringify`; the body is compressed as
 * PulseBridge compresses it (`Accept-Encoding` negotiated between `br` and `gzip`, brotli quality 4 or gzip level
 * 6 in a zlib stream, `Vary: Accept-Encoding`) when the request asks for it.
 */
import * as crypto from "node:crypto"
import type * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"
import * as zlib from "node:zlib"
import pg from "pg"

export interface BaselineOptions {
  readonly cert: string
  readonly key: string
  /** Where the pool connects; the pool size is part of it, to match PulseBridge's own pool. */
  readonly pool: pg.PoolConfig
}

export interface Baseline {
  readonly port: number
  readonly close: () => Promise<void>
}

const apiKeyPrefix = "pb_sk_"
const userTokenPrefix = "pb_ut_"
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const secretPattern = /^[A-Za-z0-9_-]{43}$/
const userPath = /^\/api\/v1\/users\/([^/?]+)$/
const glucosePath = /^(\/strong)?\/api\/v1\/users\/([^/?]+)\/connections\/glucose$/
const datePattern = /^\d{4}-\d{2}-\d{2}$/
const maxRangeDays = 366

// The aliases give the JSON shape of the API directly; PulseBridge renames in JS instead.
const userColumns = `id, app_id as "appId", external_user_id as "externalUserId", status, locale, timezone, ` +
  `metadata, created_at as "createdAt", updated_at as "updatedAt"`

const authenticateSql = "select app_id, permissions from api_keys where key_hash = $1 and revoked_at is null"
const getUserSql = `select ${userColumns} from users where id = $1 and app_id = $2`
// The user, its new token and whether it has stopped syncs to resume, in one statement, as PulseBridge does it.
const createUserSql = `
  with upserted as (
    insert into users (id, app_id, external_user_id, status, locale, timezone, metadata)
    values ($1, $2, $3, 'Active', $4, $5, $6::jsonb)
    on conflict (app_id, external_user_id) do update set
      status = 'Active',
      deleted_at = null,
      updated_at = case when users.status = 'Active' then users.updated_at else now() end
    returning ${userColumns}, (xmax = 0) as inserted
  ), token as (
    insert into user_tokens (id, user_id, token_hash) select $7, id, $8 from upserted
  )
  select *, exists (
    select 1 from connections c join sync_state s on s.connection_id = c.id
    where c.user_id = upserted.id and c.status = 'Active' and s.state = 'Stopped'
  ) as "stoppedSyncs"
  from upserted
`

// `Users.authenticate` and the three queries of `HealthData.glucose`, without the optional provider filter.
const authenticateUserSql = `
  select u.app_id, u.id as user_id, u.timezone
  from user_tokens t join users u on u.id = t.user_id
  where t.token_hash = $1 and t.revoked_at is null and u.status = 'Active'
`
const glucoseWhere = `
  x.user_id = $1 and x.date between $2 and $3
  and c.status <> 'Disconnected'
`
const glucoseReadingsSql = `
  select x.connection_id, x.provider, x.date::text as date, x.system_time, x.display_time, x.value, x.trend,
    x.trend_rate, x.unit, x.rate_unit, x.status, x.transmitter_id, x.provider_record_id as record_id
  from glucose_readings x join connections c on c.id = x.connection_id
  where ${glucoseWhere}
  order by x.date, x.provider, x.connection_id, x.system_time
`
const glucoseEventsSql = `
  select x.connection_id, x.provider, x.date::text as date, x.system_time, x.display_time, x.event_type,
    x.event_sub_type, x.value, x.unit, x.provider_record_id as event_id
  from glucose_events x join connections c on c.id = x.connection_id
  where ${glucoseWhere} and (x.event_status is null or x.event_status <> 'deleted')
  order by x.date, x.provider, x.connection_id, x.system_time
`
const glucoseCalibrationsSql = `
  select x.connection_id, x.provider, x.date::text as date, x.system_time, x.display_time, x.value, x.unit
  from glucose_calibrations x join connections c on c.id = x.connection_id
  where ${glucoseWhere}
  order by x.date, x.provider, x.connection_id, x.system_time
`

// The stronger baseline's queries: the contract's names as aliases and the timestamps as text, in the order of
// PulseBridge's keyed reads.
const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
const strongColumns = `x.connection_id as "connectionId", x.provider, x.date::text as date, ` +
  `${isoText("x.system_time")} as "systemTime", ${isoText("x.display_time")} as "displayTime"`
const strongOrder = "order by x.date, x.provider, x.connection_id, x.system_time, x.provider_record_id"
const strongReadingsSql = `
  select ${strongColumns}, x.value, x.trend, x.trend_rate as "trendRate", x.unit, x.rate_unit as "rateUnit",
    x.status, x.transmitter_id as "transmitterId", x.provider_record_id as "recordId"
  from glucose_readings x join connections c on c.id = x.connection_id
  where ${glucoseWhere}
  ${strongOrder}
`
const strongEventsSql = `
  select ${strongColumns}, x.event_type as "eventType", x.event_sub_type as "eventSubType", x.value, x.unit,
    x.provider_record_id as "eventId"
  from glucose_events x join connections c on c.id = x.connection_id
  where ${glucoseWhere} and (x.event_status is null or x.event_status <> 'Deleted')
  ${strongOrder}
`
const strongCalibrationsSql = `
  select ${strongColumns}, x.value, x.unit
  from glucose_calibrations x join connections c on c.id = x.connection_id
  where ${glucoseWhere}
  ${strongOrder}
`

/** `br` or `gzip` as PulseBridge negotiates them (q-values, `*`, `q=0`), or undefined for no compression. */
const negotiate = (header: string | undefined): "br" | "gzip" | undefined => {
  if (header === undefined) return undefined
  const q: Record<string, number> = {}
  for (const part of header.split(",")) {
    const [name, ...params] = part.split(";")
    const coding = name!.trim().toLowerCase()
    const weight = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)).find((m) => m !== null)
    if (coding !== "" && !(coding in q)) q[coding] = weight ? Number(weight[1]) : 1
  }
  const br = q["br"] ?? q["*"] ?? 0
  const gzip = q["gzip"] ?? q["*"] ?? 0
  return br <= 0 && gzip <= 0 ? undefined : br >= gzip ? "br" : "gzip"
}

/** Sends `json`, compressed in a zlib stream when the request asks for it and the body is 1 KiB or more. */
const sendCompressed = (request: http.IncomingMessage, response: http.ServerResponse, json: string) => {
  const body = Buffer.from(json, "utf8")
  const encoding = body.length >= 1024 ? negotiate(request.headers["accept-encoding"]) : undefined
  if (encoding === undefined) {
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": body.length,
      ...(body.length >= 1024 ? { vary: "Accept-Encoding" } : {})
    })
    response.end(body)
    return
  }
  response.writeHead(200, { "content-type": "application/json", "content-encoding": encoding, vary: "Accept-Encoding" })
  const zipped = encoding === "br"
    ? zlib.createBrotliCompress({
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length }
    })
    : zlib.createGzip({ level: 6 })
  zipped.pipe(response)
  zipped.end(body)
}

const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** The rows with camelCase keys, in the column order (the order of the API's fields). */
const renamed = (result: pg.QueryResult<Record<string, unknown>>): Array<Record<string, unknown>> => {
  const columns = result.fields.map((field) => [field.name, camelCase(field.name)] as const)
  return result.rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (const [from, to] of columns) out[to] = row[from]
    return out
  })
}

/** A calendar day `YYYY-MM-DD` that exists. */
const isDate = (value: string | null): value is string =>
  value !== null && datePattern.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value

const dayNumber = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000)

const sha256 = (secret: string) => crypto.createHash("sha256").update(secret).digest("hex")

const send = (response: http.ServerResponse, status: number, body: unknown) => {
  const json = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) })
  response.end(json)
}

const fail = (response: http.ServerResponse, status: number, tag: string, message: string) =>
  send(response, status, { _tag: tag, message })

const bearer = (authorization: string | undefined): string | undefined => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? undefined : match[1]
}

const readBody = (request: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

interface CreatePayload {
  readonly externalUserId: string
  readonly locale?: string
  readonly timezone?: string
  readonly metadata?: Record<string, unknown>
}

const parsePayload = (text: string): CreatePayload | undefined => {
  try {
    const body = JSON.parse(text) as Partial<CreatePayload> | null
    return typeof body === "object" && body !== null && typeof body.externalUserId === "string" &&
        body.externalUserId.length > 0
      ? body as CreatePayload
      : undefined
  } catch {
    return undefined
  }
}

// `HealthDataRepo.glucoseDays` as it is.
const glucoseDaysSql = `
  select g.connection_id, g.provider, g.date::text as date, count(*)::int as readings,
    sum(g.v)::float8 as sum, sum(g.v * g.v)::float8 as sum_of_squares, min(g.v)::float8 as min,
    max(g.v)::float8 as max,
    (count(*) filter (where g.v < 54))::int as very_low,
    (count(*) filter (where g.v >= 54 and g.v < 70))::int as low,
    (count(*) filter (where g.v >= 70 and g.v <= 180))::int as in_range,
    (count(*) filter (where g.v > 180 and g.v <= 250))::int as high,
    (count(*) filter (where g.v > 250))::int as very_high
  from (
    select r.connection_id, r.provider, r.date,
      least(greatest(case when r.unit = 'mmol/L' then r.value * $4 else r.value end, 40), 400) as v
    from glucose_readings r
    where r.user_id = $1 and r.date between $2 and $3 and r.value is not null
      and r.unit in ('mg/dL', 'mmol/L')
  ) g
  join connections c on c.id = g.connection_id
  where c.status <> 'Disconnected'
  group by g.connection_id, g.provider, g.date
  order by g.date, g.provider, g.connection_id
`

interface GlucoseDayRow {
  readonly connection_id: string
  readonly provider: string
  readonly date: string
  readonly readings: number
  readonly sum: number
  readonly sum_of_squares: number
  readonly min: number
  readonly max: number
  readonly very_low: number
  readonly low: number
  readonly in_range: number
  readonly high: number
  readonly very_high: number
}

const round1 = (x: number) => Math.round(x * 10) / 10

/** The statistics of `GlucoseSummaries.glucoseStats`, from a day's (or added days') sums. */
const glucoseStats = (s: Omit<GlucoseDayRow, "connection_id" | "provider" | "date">, days: number) => {
  const n = s.readings
  const mean = s.sum / n
  const sd = Math.sqrt(Math.max(0, s.sum_of_squares / n - mean * mean))
  const percent = (part: number, whole: number) => round1((part / whole) * 100)
  return {
    readings: n,
    coveragePercent: Math.min(100, percent(n, 288 * days)),
    meanMgDl: round1(mean),
    sdMgDl: round1(sd),
    cvPercent: percent(sd, mean),
    minMgDl: round1(s.min),
    maxMgDl: round1(s.max),
    gmiPercent: round1(3.31 + 0.02392 * mean),
    timeInRanges: {
      veryLow: percent(s.very_low, n),
      low: percent(s.low, n),
      inRange: percent(s.in_range, n),
      high: percent(s.high, n),
      veryHigh: percent(s.very_high, n)
    }
  }
}

/** The glucose summary of `GlucoseSummaries.summarise`, unbounded (30 days of summaries are far within the bound). */
const glucoseSummary = (from: string, to: string, rows: ReadonlyArray<GlucoseDayRow>) => {
  const byConnection = new Map<string, Array<GlucoseDayRow>>()
  for (const row of rows) byConnection.set(row.connection_id, [...(byConnection.get(row.connection_id) ?? []), row])
  const add = (list: ReadonlyArray<GlucoseDayRow>) =>
    list.reduce((a, b) => ({
      ...a,
      readings: a.readings + b.readings,
      sum: a.sum + b.sum,
      sum_of_squares: a.sum_of_squares + b.sum_of_squares,
      min: Math.min(a.min, b.min),
      max: Math.max(a.max, b.max),
      very_low: a.very_low + b.very_low,
      low: a.low + b.low,
      in_range: a.in_range + b.in_range,
      high: a.high + b.high,
      very_high: a.very_high + b.very_high
    }))
  return {
    from,
    to,
    continueFrom: null,
    partialDay: null,
    unit: "mg/dL",
    targetRange: { lowMgDl: 70, highMgDl: 180 },
    connections: [...byConnection.values()].map((list) => ({
      connectionId: list[0]!.connection_id,
      provider: list[0]!.provider,
      days: list.length,
      stats: glucoseStats(add(list), dayNumber(to) - dayNumber(from) + 1)
    })),
    days: rows.map((row) => ({
      date: row.date,
      connectionId: row.connection_id,
      provider: row.provider,
      stats: glucoseStats(row, 1)
    }))
  }
}

const rpcError = (response: http.ServerResponse, status: number, id: unknown, code: number, message: string) =>
  send(response, status, { jsonrpc: "2.0", id: id ?? null, error: { code, message } })

export const startBaseline = (options: BaselineOptions): Promise<Baseline> => {
  const pool = new pg.Pool(options.pool)
  pool.on("error", () => {})

  /** The app of a live API key carrying `permission`, or an error response already sent. */
  const authenticate = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    permission: string
  ): Promise<string | undefined> => {
    const secret = bearer(request.headers.authorization)
    const wellFormed = secret !== undefined && secret.startsWith(apiKeyPrefix) &&
      secretPattern.test(secret.slice(apiKeyPrefix.length))
    const rows = wellFormed
      ? (await pool.query<{ app_id: string; permissions: Array<string> }>(authenticateSql, [sha256(secret)])).rows
      : []
    const app = rows[0]
    if (app === undefined) {
      fail(response, 401, "Unauthorized", "Invalid or revoked API key")
      return undefined
    }
    if (!app.permissions.includes(permission)) {
      fail(response, 403, "Forbidden", `This API key lacks the permission ${permission}`)
      return undefined
    }
    return app.app_id
  }

  const getUser = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    id: string
  ) => {
    const appId = await authenticate(request, response, "users:read")
    if (appId === undefined) return
    const rows = uuidPattern.test(id) ? (await pool.query(getUserSql, [id, appId])).rows : []
    if (rows[0] === undefined) return fail(response, 404, "NotFound", `no user with id ${id}`)
    send(response, 200, rows[0])
  }

  const glucose = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    userId: string,
    query: URLSearchParams,
    strong: boolean
  ) => {
    const secret = bearer(request.headers.authorization)
    const wellFormed = secret !== undefined && secret.startsWith(userTokenPrefix) &&
      secretPattern.test(secret.slice(userTokenPrefix.length))
    const rows = wellFormed
      ? (await pool.query<{ user_id: string }>(authenticateUserSql, [sha256(secret)])).rows
      : []
    if (rows[0] === undefined) {
      return fail(response, 401, "Unauthorized", "Invalid or revoked user token, or the user was deleted")
    }
    if (rows[0].user_id !== userId) {
      return fail(response, 403, "Forbidden", "This user token may only access its own user")
    }
    const from = query.get("from")
    const to = query.get("to")
    if (!isDate(from) || !isDate(to) || from > to || dayNumber(to) - dayNumber(from) + 1 > maxRangeDays) {
      return fail(response, 400, "BadRequest", "from and to must be dates at most 366 days apart")
    }
    const params = [userId, from, to]
    const limit = query.get("limit")
    if (strong && limit !== null) {
      // The first page of a paged read, filled by readings (the benchmark's pages are within the range's readings).
      const readings = (await pool.query(`${strongReadingsSql} limit $4`, [...params, Number(limit)])).rows
      return sendCompressed(request, response, JSON.stringify({ readings, events: [], calibrations: [] }))
    }
    if (strong) {
      const readings = (await pool.query(strongReadingsSql, params)).rows
      const events = (await pool.query(strongEventsSql, params)).rows
      const calibrations = (await pool.query(strongCalibrationsSql, params)).rows
      return sendCompressed(request, response, JSON.stringify({ readings, events, calibrations }))
    }
    const readings = renamed(await pool.query(glucoseReadingsSql, params))
    const events = renamed(await pool.query(glucoseEventsSql, params))
    const calibrations = renamed(await pool.query(glucoseCalibrationsSql, params))
    send(response, 200, { readings, events, calibrations })
  }

  const mcpGlucoseSummary = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const text = await readBody(request)
    const secret = bearer(request.headers.authorization)
    const wellFormed = secret !== undefined && secret.startsWith(userTokenPrefix) &&
      secretPattern.test(secret.slice(userTokenPrefix.length))
    const users = wellFormed
      ? (await pool.query<{ user_id: string }>(authenticateUserSql, [sha256(secret)])).rows
      : []
    if (users[0] === undefined) {
      return fail(response, 401, "Unauthorized", "Invalid or revoked user token, or the user was deleted")
    }
    let message: { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: Record<string, unknown> } }
    try {
      message = JSON.parse(text)
    } catch {
      return rpcError(response, 400, null, -32700, "Parse error")
    }
    if (message.method !== "tools/call" || message.params?.name !== "get_glucose_summary") {
      return rpcError(response, 200, message.id, -32601, "Only get_glucose_summary is served here")
    }
    const from = message.params.arguments?.["from"]
    const to = message.params.arguments?.["to"]
    if (
      typeof from !== "string" || typeof to !== "string" || !isDate(from) || !isDate(to) || from > to ||
      dayNumber(to) - dayNumber(from) + 1 > 92
    ) {
      const result = { content: [{ type: "text", text: "Invalid arguments" }], isError: true }
      return send(response, 200, { result, jsonrpc: "2.0", id: message.id })
    }
    const rows = (await pool.query<GlucoseDayRow>(glucoseDaysSql, [users[0].user_id, from, to, 18.016])).rows
    const summary = glucoseSummary(from, to, rows)
    const result = { content: [{ type: "text", text: JSON.stringify(summary) }], structuredContent: summary }
    send(response, 200, { result, jsonrpc: "2.0", id: message.id })
  }

  const createUser = async (
    request: http.IncomingMessage,
    response: http.ServerResponse
  ) => {
    const text = await readBody(request)
    const appId = await authenticate(request, response, "users:write")
    if (appId === undefined) return
    const payload = parsePayload(text)
    if (payload === undefined) return fail(response, 400, "BadRequest", "externalUserId is required")
    const token = userTokenPrefix + crypto.randomBytes(32).toString("base64url")
    const { rows } = await pool.query<{ id: string; inserted: boolean; stoppedSyncs: boolean }>(createUserSql, [
      crypto.randomUUID(),
      appId,
      payload.externalUserId,
      payload.locale ?? "en-US",
      payload.timezone ?? "UTC",
      JSON.stringify(payload.metadata ?? {}),
      crypto.randomUUID(),
      sha256(token)
    ])
    const { inserted, stoppedSyncs: _stoppedSyncs, ...user } = rows[0]!
    send(response, inserted ? 201 : 200, { ...user, token })
  }

  const server = https.createServer({ cert: options.cert, key: options.key }, (request, response) => {
    const url = request.url ?? "/"
    const queryAt = url.indexOf("?")
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt)
    const userMatch = userPath.exec(url)
    const glucoseMatch = glucosePath.exec(pathname)
    const handled = request.method === "GET" && userMatch !== null
      ? getUser(request, response, userMatch[1]!)
      : request.method === "GET" && glucoseMatch !== null
      ? glucose(
        request,
        response,
        glucoseMatch[2]!,
        new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1)),
        glucoseMatch[1] !== undefined
      )
      : request.method === "POST" && url === "/api/v1/users"
      ? createUser(request, response)
      : request.method === "POST" && url === "/mcp"
      ? mcpGlucoseSummary(request, response)
      : Promise.resolve(fail(response, 404, "NotFound", "No such route"))
    handled.catch(() => {
      if (!response.headersSent) fail(response, 500, "InternalServerError", "Internal server error")
      else response.destroy()
    })
  })
  const sockets = new Set<net.Socket>()
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })

  return new Promise<Baseline>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      resolve({
        port: address.port,
        close: async () => {
          // Keep-alive connections of the load generator would otherwise hold close() until they time out.
          for (const socket of sockets) socket.destroy()
          await new Promise<void>((done) => server.close(() => done()))
          await pool.end()
        }
      })
    })
  })
}
