/**
 * Meals compared through HTTP against the real server and database: journal entries made through the journal's
 * own routes (items in any order and case, titles) and glucose readings stored through the sync's own store, on
 * curves whose figures are worked out by hand; the groups' statistics, the per-carbohydrate figures, the moving
 * baseline; one user never seeing another's meals; the query's validation and the cap on entries (400 JSON,
 * nothing changed); the ETag (304) and compression, which are the wire's; the credential rules; and the MCP tool
 * `compare_meals` answering the same numbers through the official SDK's client.
 */
import { HttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { ConnectionId, UserId } from "@pulsebridge/domain"
import { MealComparisonMaxEntries } from "@pulsebridge/domain"
import type { CanonicalBatch } from "@pulsebridge/providers"
import { emptyBatch } from "@pulsebridge/providers"
import { addConnection, apiClient, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as zlib from "node:zlib"
import { RecordStore } from "../../src/sync/RecordStore.js"
import { expectError, expectOwnTokenOnly, json, preview, request, send } from "../fixtures/Http.js"
import { callTool, mcpClient, toolError } from "../fixtures/Mcp.js"

const MIN = 60_000

/** Readings every 5 minutes from -30 to +180 minutes around `at`, valued by `f`, stored as the sync does. */
const storeCurve = (userId: string, connectionId: ConnectionId, at: number, f: (minute: number) => number) => {
  const readings: Array<CanonicalBatch["glucoseReadings"][number]> = []
  for (let m = -30; m <= 180; m += 5) {
    const instant = new Date(at + m * MIN)
    readings.push({
      providerRecordId: `egv-${instant.getTime()}`,
      date: instant.toISOString().slice(0, 10),
      systemTime: instant,
      displayTime: instant,
      value: f(m),
      trend: "Flat",
      trendRate: 0,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      status: null,
      transmitterId: "tx",
      rawJson: "{}"
    })
  }
  return Effect.flatMap(RecordStore, (s) =>
    s.storeBatch(
      { connectionId, userId: userId as UserId, provider: "Dexcom" },
      { ...emptyBatch, glucoseReadings: readings },
      "2026-03-01"
    ))
}

/**
 * 100 before the entry; up to 100 + `height` at 60 minutes and back to 100 at 120, linearly; 100 after. Rise
 * `height`, area `height` x 60, change at 1 hour `height` and at 2 hours 0, time to peak 60.
 */
const triangle = (height: number) => (m: number) =>
  m <= 0 ? 100 : m <= 60 ? 100 + height * m / 60 : m <= 120 ? 100 + height * (120 - m) / 60 : 100

/** A baseline still rising 1.2 mg/dL a minute (94 at -30 to 130 at the entry), then a triangle on top. */
const risingBefore = (m: number) => m <= 0 ? 130 + 1.2 * m : m <= 60 ? 130 + m : m <= 120 ? 250 - m : 130

const entriesPath = (userId: string) => `/api/v1/users/${userId}/journal-entries`
const comparisonsPath = (userId: string, query: string) => `/api/v1/users/${userId}/meal-comparisons?${query}`

/** A Meal at `at`: with `items` (name and carbohydrate), set by a correction as a user would; else with `title`. */
const logMeal = (
  token: string,
  userId: string,
  at: number,
  meal: { readonly title?: string; readonly carbsGrams?: number; readonly items?: ReadonlyArray<[string, number]> }
) =>
  Effect.gen(function*() {
    const created = yield* send("POST", entriesPath(userId), {
      bearer: token,
      json: {
        entryKind: "Meal",
        consumedAtUtc: new Date(at).toISOString(),
        timezone: "UTC",
        ...(meal.title === undefined ? {} : { title: meal.title }),
        ...(meal.carbsGrams === undefined ? {} : { nutrients: { carbsGrams: meal.carbsGrams } })
      }
    })
    expect(created.status, preview(created)).toBe(201)
    const id = json(created).id as string
    if (meal.items !== undefined) {
      const edited = yield* send("PATCH", `${entriesPath(userId)}/${id}`, {
        bearer: token,
        json: {
          items: meal.items.map(([name, carbsGrams]) => ({
            name,
            quantity: 1,
            unit: "serving",
            nutrients: { carbsGrams }
          }))
        }
      })
      expect(edited.status, preview(edited)).toBe(200)
    }
    return id
  })

const compare = (token: string, userId: string, query: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", comparisonsPath(userId, query), { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply)
  })

const day = (d: number, hour: number) => Date.parse(`2026-03-${String(d).padStart(2, "0")}T00:00:00Z`) + hour * 60 * MIN

/**
 * A user's month: oatmeal with banana on the 2nd, 3rd and 4th at 08:00 (items in any order and case, 50 g of
 * carbohydrate), rises 60, 40 and 50; again on the 5th with a baseline still rising; pasta by title on the 2nd and
 * 3rd at 13:00, rises 80 and 40, carbohydrate known once; an apple once.
 */
const seedMonth = (token: string, userId: string, dexcom: ConnectionId) =>
  Effect.gen(function*() {
    const oatmeal = [
      yield* logMeal(token, userId, day(2, 8), { items: [["Oatmeal", 30], ["Banana", 20]] }),
      yield* logMeal(token, userId, day(3, 8), { items: [["banana", 20], ["OATMEAL", 30]] }),
      yield* logMeal(token, userId, day(4, 8), { items: [[" Oatmeal.", 30], ["Banana", 20]] }),
      yield* logMeal(token, userId, day(5, 8), { items: [["Banana", 20], ["Oatmeal", 30]] })
    ]
    const pasta = [
      yield* logMeal(token, userId, day(2, 13), { title: "Pasta", carbsGrams: 80 }),
      yield* logMeal(token, userId, day(3, 13), { title: "pasta" })
    ]
    const apple = yield* logMeal(token, userId, day(6, 8), { title: "Apple", carbsGrams: 15 })
    yield* storeCurve(userId, dexcom, day(2, 8), triangle(60))
    yield* storeCurve(userId, dexcom, day(3, 8), triangle(40))
    yield* storeCurve(userId, dexcom, day(4, 8), triangle(50))
    yield* storeCurve(userId, dexcom, day(5, 8), risingBefore)
    yield* storeCurve(userId, dexcom, day(2, 13), triangle(80))
    yield* storeCurve(userId, dexcom, day(3, 13), triangle(40))
    yield* storeCurve(userId, dexcom, day(6, 8), triangle(30))
    return { oatmeal, pasta, apple }
  })

/** The answer's JSON read raw, with `accept-encoding`, decompressed as the client would. */
const getEncoded = (path: string, token: string, encoding: string) =>
  Effect.gen(function*() {
    const req = yield* request("GET", path, { bearer: token, headers: { "accept-encoding": encoding } })
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(req)
    const bytes = Buffer.from(yield* response.arrayBuffer)
    const contentEncoding = response.headers["content-encoding"]
    const text = (contentEncoding === "gzip" ? zlib.gunzipSync(bytes) : bytes).toString("utf8")
    return { contentEncoding, text }
  }).pipe(Effect.scoped, Effect.orDie)

// On the real clock: whether a window's readings may still arrive depends on the time now (these are long past).
layer(makeTestServer(), { timeout: "120 seconds", excludeTestServices: true })("meal comparisons", (it) => {
  it.scoped("groups by what was eaten, with n, mean, spread, per-carb figures and the moving baseline; MCP agrees", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("compare-owner")
      const dexcom = yield* addConnection(user, "Dexcom")
      const { oatmeal, pasta } = yield* seedMonth(token, user.id, dexcom)
      // another user (of another app) eats the same on the same curves: never in this user's answer
      const other = yield* createUser("compare-other")
      const theirs = yield* seedMonth(other.token, other.user.id, yield* addConnection(other.user, "Dexcom"))

      const answer = yield* compare(token, user.id, "from=2026-03-01&to=2026-03-31")
      expect(answer).toMatchObject({
        from: "2026-03-01",
        to: "2026-03-31",
        minGroupSize: 2,
        unit: "mg/dL",
        aboveMgDl: 140,
        movingBaselineMgDlPerMin: 1,
        entries: 7,
        completeResponses: 7,
        inGroups: 5
      })
      expect(answer.groups.map((g: any) => [g.key, g.n, g.movingBaselineMeals, g.carbsKnown])).toEqual([
        ["banana + oatmeal", 3, 1, 3],
        ["pasta", 2, 0, 1]
      ])
      const [oat, pastaGroup] = answer.groups
      // rises 60, 40, 50; areas 3600, 2400, 3000; above 140: 40, 0 and 24 minutes (from 48 to 72)
      expect(oat).toMatchObject({
        label: "Banana, Oatmeal",
        riseMgDl: { mean: 50, sd: 10, min: 40, max: 60 },
        iauc2hMgDlMin: { mean: 3000, sd: 600, min: 2400, max: 3600 },
        change1hMgDl: { mean: 50, sd: 10, min: 40, max: 60 },
        change2hMgDl: { mean: 0, sd: 0, min: 0, max: 0 },
        // mean 21.3, SD 20.1
        minutesAbove140: { mean: 21, sd: 20, min: 0, max: 40 },
        timeToPeakMinutes: { mean: 60, sd: 0, min: 60, max: 60 },
        carbsGrams: { mean: 50, sd: 0, min: 50, max: 50 },
        // 60, 40, 50 over 50 g: 12, 8, 10 per 10 g; areas 720, 480, 600 per 10 g
        risePer10gCarbs: { mean: 10, sd: 2, min: 8, max: 12 },
        iaucPer10gCarbs: { mean: 600, sd: 120, min: 480, max: 720 }
      })
      expect(oat.meals.map((m: any) => m.entryId)).toEqual(oatmeal)
      // the 5th: baseline 94 to 130 (mean 112) rising 1.2 mg/dL a minute; listed, marked, not counted
      expect(oat.meals[3]).toMatchObject({
        journalDate: "2026-03-05",
        consumedAtUtc: "2026-03-05T08:00:00.000Z",
        carbsGrams: 50,
        inStatistics: false,
        movingBaseline: true,
        baselineMgDl: 112,
        baselineSlopeMgDlPerMin: 1.2,
        riseMgDl: 78,
        change1hMgDl: 78,
        change2hMgDl: 18,
        minutesAbove140: 100,
        // 130 after 2 hours, above the baseline of 112
        flags: ["notBackToBaseline"]
      })
      expect(oat.meals[0]).toMatchObject({
        inStatistics: true,
        movingBaseline: false,
        riseMgDl: 60,
        iauc2hMgDlMin: 3600,
        minutesAbove140: 40,
        risePer10gCarbs: 12,
        iaucPer10gCarbs: 720
      })
      // pasta: carbohydrate known for one meal of two, so no group figure per carbohydrate
      expect(pastaGroup).toMatchObject({
        label: "pasta",
        riseMgDl: { mean: 60, sd: 28.3, min: 40, max: 80 },
        carbsGrams: null,
        risePer10gCarbs: null,
        iaucPer10gCarbs: null
      })
      expect(pastaGroup.meals.map((m: any) => [m.entryId, m.risePer10gCarbs])).toEqual([
        [pasta[0], 10],
        [pasta[1], null]
      ])
      const theirIds = [...theirs.oatmeal, ...theirs.pasta, theirs.apple]
      expect(JSON.stringify(answer)).not.toMatch(new RegExp(theirIds.join("|")))

      // a larger smallest group; a range without meals
      const three = yield* compare(token, user.id, "from=2026-03-01&to=2026-03-31&minGroupSize=3")
      expect(three.groups.map((g: any) => g.key)).toEqual(["banana + oatmeal"])
      expect(three.inGroups).toBe(3)
      expect(yield* compare(token, user.id, "from=2026-04-01&to=2026-04-30")).toMatchObject({
        entries: 0,
        completeResponses: 0,
        inGroups: 0,
        groups: []
      })

      // the typed client decodes the answer
      const typed = yield* (yield* apiClient(token)).insights.mealComparisons({
        path: { userId: user.id },
        urlParams: { from: "2026-03-01", to: "2026-03-31" }
      })
      expect(typed.groups[0]!.meals[0]!.consumedAtUtc).toEqual(new Date("2026-03-02T08:00:00Z"))

      // the MCP tool answers the same numbers (and how many groups its size bound left out: none)
      const client = yield* mcpClient(token)
      const { tools } = yield* Effect.promise(() => client.listTools())
      const tool = tools.find((t) => t.name === "compare_meals")!
      expect(tool.inputSchema).toMatchObject({
        required: ["from", "to"],
        properties: { from: { type: "string", format: "date" }, minGroupSize: { type: "integer" } }
      })
      expect(tool.annotations).toMatchObject({ readOnlyHint: true })
      expect(yield* callTool(client, "compare_meals", { from: "2026-03-01", to: "2026-03-31" })).toEqual({
        ...answer,
        groupsLeftOut: 0
      })
      expect(yield* callTool(client, "compare_meals", { from: "2026-03-01", to: "2026-03-31", minGroupSize: 3 }))
        .toEqual({ ...three, groupsLeftOut: 0 })
      for (
        const [args, fragment] of [
          [{ from: "2026-03-31", to: "2026-03-01" }, "must not be after"],
          [{ from: "2025-01-01", to: "2026-03-01" }, "at most 366 days"],
          [{ from: "2026-03-01", to: "2026-03-31", minGroupSize: 1 }, "minGroupSize"],
          [{ from: "2026-03-01", to: "2026-03-31", userId: other.user.id }, "userId"]
        ] as const
      ) {
        expect(yield* toolError(client, "compare_meals", args), JSON.stringify(args)).toContain(fragment)
      }
      // the other user's tool answers their own meals
      const theirClient = yield* mcpClient(other.token)
      const theirAnswer = yield* callTool(theirClient, "compare_meals", { from: "2026-03-01", to: "2026-03-31" })
      expect(theirAnswer.groups[0].meals.map((m: any) => m.entryId)).toEqual(theirs.oatmeal)
    }))

  it.effect("ETag: 304 while the answer is unchanged, a new one when a meal is added; compressed when asked", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("compare-etag")
      const dexcom = yield* addConnection(user, "Dexcom")
      yield* seedMonth(token, user.id, dexcom)
      const path = comparisonsPath(user.id, "from=2026-03-01&to=2026-03-31")
      const first = yield* send("GET", path, { bearer: token })
      expect(first.status, preview(first)).toBe(200)
      const etag = first.headers["etag"]!
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/)
      expect(first.headers["cache-control"]).toBe("private, no-cache")
      const again = yield* send("GET", path, { bearer: token, headers: { "if-none-match": etag } })
      expect(again.status).toBe(304)
      expect(again.text).toBe("")
      // another range is another answer
      const shorter = yield* send("GET", comparisonsPath(user.id, "from=2026-03-01&to=2026-03-04"), {
        bearer: token,
        headers: { "if-none-match": etag }
      })
      expect(shorter.status).toBe(200)

      const zipped = yield* getEncoded(path, token, "gzip")
      expect(zipped.contentEncoding).toBe("gzip")
      expect(zipped.text).toBe(first.text)

      // a third pasta: the answer changes, and so does its ETag
      yield* logMeal(token, user.id, day(7, 13), { title: "PASTA" })
      yield* storeCurve(user.id, dexcom, day(7, 13), triangle(60))
      const changed = yield* send("GET", path, { bearer: token, headers: { "if-none-match": etag } })
      expect(changed.status, preview(changed)).toBe(200)
      expect(changed.headers["etag"]).not.toBe(etag)
      expect(json(changed).groups.find((g: any) => g.key === "pasta").n).toBe(3)
    }))

  it.effect("bad queries are 400 JSON and change nothing; a range over the entry cap is refused", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("compare-validation")
      for (
        const query of [
          "from=2026-03-02&to=2026-03-01",
          "from=2026-01-01&to=2027-01-02",
          "from=2026-02-30&to=2026-03-01",
          "from=yesterday&to=2026-03-01",
          "from=2026-03-01",
          "",
          "from=2026-03-01&to=2026-03-31&minGroupSize=1",
          "from=2026-03-01&to=2026-03-31&minGroupSize=51",
          "from=2026-03-01&to=2026-03-31&minGroupSize=two",
          "from=2026-03-01&to=2026-03-31&minGroupSize=2.5",
          "from=2026-03-01&to=2026-03-31&minGroupSize="
        ]
      ) {
        const reply = yield* send("GET", comparisonsPath(user.id, query), { bearer: token })
        expect(reply.status, `${query}: ${preview(reply)}`).toBe(400)
        expect(typeof json(reply)._tag).toBe("string")
      }
      expectError(
        yield* send("GET", comparisonsPath("not-a-uuid", "from=2026-01-01&to=2026-01-02"), { bearer: token }),
        400
      )
      // 366 days inclusive is the longest range
      expect((yield* compare(token, user.id, "from=2026-01-01&to=2027-01-01")).groups).toEqual([])

      // one entry more than the cap in the range: 400 saying to narrow it; the journal is as it was
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into journal_entries (id, app_id, user_id, entry_kind, entry_source, analysis_status, title,
          consumed_at_utc, journal_date, timezone)
        select gen_random_uuid(), u.app_id, u.id, 'Coffee', 'Manual', 'None', 'Espresso',
          timestamptz '2026-06-01T00:00:00Z' + i * interval '1 hour',
          (timestamptz '2026-06-01T00:00:00Z' + i * interval '1 hour')::date, 'UTC'
        from users u, generate_series(1, ${MealComparisonMaxEntries + 1}) i
        where u.id = ${user.id}
      `
      const count = () =>
        Effect.map(
          sql<{ n: number }>`select count(*)::int as n from journal_entries where user_id = ${user.id}`,
          ([row]) => row!.n
        )
      const before = yield* count()
      const refused = expectError(
        yield* send("GET", comparisonsPath(user.id, "from=2026-06-01&to=2026-12-31"), { bearer: token }),
        400,
        "BadRequest"
      )
      expect(refused.message).toContain(`more than ${MealComparisonMaxEntries}`)
      expect(refused.message).toContain("narrow the range")
      expect(yield* count()).toBe(before)
      // a shorter range within the cap is answered: 23 on June 1st (from 01:00) and 24 a day to August 22nd
      const answered = yield* compare(token, user.id, "from=2026-06-01&to=2026-08-22")
      expect(answered).toMatchObject({ entries: 23 + 82 * 24, completeResponses: 0, groups: [] })
    }))

  it.effect("the user's own token only: 401 without one, with a bad one or an API key, 403 for another user", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("compare-credentials")
      const other = yield* createUser("compare-credentials-other")
      yield* expectOwnTokenOnly(
        { apiKey, token, userId: user.id, otherId: other.user.id },
        (userId) => comparisonsPath(userId, "from=2026-01-01&to=2026-01-31")
      )
    }))

  it.effect("the OpenAPI document carries the read, its query and its schemas", () =>
    Effect.gen(function*() {
      const doc = json(yield* send("GET", "/openapi.json"))
      const operation = doc.paths["/api/v1/users/{userId}/meal-comparisons"].get
      expect(Object.keys(operation.responses).filter((s) => Number(s) < 400)).toEqual(["200"])
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["400", "401", "403"]))
      expect(operation.security.flatMap((r: object) => Object.keys(r)).sort()).toEqual([
        "userTokenBearer",
        "userTokenHeader"
      ])
      expect(operation.parameters.map((p: any) => p.name).sort()).toEqual(["from", "minGroupSize", "to", "userId"])
      expect(operation.description).toContain("ETag")
      expect(Object.keys(doc.components.schemas)).toEqual(
        expect.arrayContaining(["MealComparison", "MealGroup", "ComparedMeal", "MealComparisonStat"])
      )
    }))
})
