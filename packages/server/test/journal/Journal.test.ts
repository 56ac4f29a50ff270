/**
 * The journal's manual entries end to end (endpoints 16, 18, 19, 20): creation of each kind, the
 * list and full forms, the merge rules of a correction, validation and the credential rules.
 */
import { expect, it } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import type { Method, RequestOptions } from "../fixtures/Http.js"
import { expectError, isoUtc, json, preview, send, unknownId } from "../fixtures/Http.js"

const nutrientKeys = [
  "caloriesKcal",
  "carbsGrams",
  "fatGrams",
  "fiberGrams",
  "proteinGrams",
  "sodiumMg",
  "sugarGrams",
  "caffeineMg",
  "volumeMl"
].sort()

const fullKeys = [
  "id",
  "entryKind",
  "entrySource",
  "analysisStatus",
  "title",
  "notes",
  "consumedAtUtc",
  "journalDate",
  "timezone",
  "isUserEdited",
  "nutrients",
  "items",
  "image",
  "analysis",
  "glucoseResponse",
  "createdAt",
  "updatedAt"
].sort()

const listKeys = fullKeys.filter((k) => !["items", "image", "analysis", "glucoseResponse"].includes(k)).concat([
  "itemCount",
  "hasImage"
]).sort()

const entries = (userId: string) => `/api/v1/users/${userId}/journal-entries`

const create = (token: string, userId: string, body: unknown) =>
  Effect.gen(function*() {
    const reply = yield* send("POST", entries(userId), { bearer: token, json: body })
    expect(reply.status, preview(reply)).toBe(201)
    return json(reply)
  })

it.layer(makeTestServer(), { timeout: "120 seconds" })("journal entries", (it) => {
  it.effect("each manual kind is created with 201 as a Manual entry with all nine nutrient keys", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-kinds")
      for (const entryKind of ["Meal", "Drink", "Water", "Coffee"]) {
        const entry = yield* create(token, user.id, {
          entryKind,
          consumedAtUtc: "2026-01-05T12:30:00Z",
          nutrients: { caloriesKcal: 250 }
        })
        expect(Object.keys(entry).sort(), entryKind).toEqual(fullKeys)
        expect(entry).toMatchObject({
          entryKind,
          entrySource: "Manual",
          analysisStatus: "None",
          title: entryKind,
          notes: null,
          consumedAtUtc: "2026-01-05T12:30:00.000Z",
          journalDate: "2026-01-05",
          timezone: "UTC",
          isUserEdited: false,
          items: [],
          image: null,
          analysis: null,
          // the user has no glucose data
          glucoseResponse: null
        })
        expect(Object.keys(entry.nutrients).sort()).toEqual(nutrientKeys)
        expect(entry.nutrients.caloriesKcal).toBe(250)
        for (const key of nutrientKeys.filter((k) => k !== "caloriesKcal")) expect(entry.nutrients[key]).toBeNull()
        expect(entry.createdAt).toMatch(isoUtc)
        expect(entry.updatedAt).toMatch(isoUtc)
      }
    }))

  it.effect("a coffee keeps its caffeineMg and volumeMl, and a read returns the same entry", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-coffee")
      const entry = yield* create(token, user.id, {
        entryKind: "Coffee",
        consumedAtUtc: "2026-01-05T08:00:00Z",
        title: "Flat white",
        notes: "oat milk",
        nutrients: { caffeineMg: 80, volumeMl: 200, caloriesKcal: 90 }
      })
      expect(entry.nutrients).toEqual({
        caloriesKcal: 90,
        proteinGrams: null,
        carbsGrams: null,
        fatGrams: null,
        fiberGrams: null,
        sugarGrams: null,
        sodiumMg: null,
        caffeineMg: 80,
        volumeMl: 200
      })
      expect(entry.title).toBe("Flat white")
      expect(entry.notes).toBe("oat milk")
      const read = yield* send("GET", `${entries(user.id)}/${entry.id}`, { bearer: token })
      expect(read.status, preview(read)).toBe(200)
      expect(json(read)).toEqual(entry)
    }))

  it.effect("journalDate is the local date of consumedAtUtc in the entry's time zone, else the user's", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("journal-dates")
      const late = yield* create(token, user.id, {
        entryKind: "Meal",
        consumedAtUtc: "2026-01-05T23:30:00Z",
        timezone: "Europe/Berlin"
      })
      expect(late.journalDate).toBe("2026-01-06")
      expect(late.timezone).toBe("Europe/Berlin")
      const offset = yield* create(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-01-05T01:00:00+02:00" })
      expect(offset.consumedAtUtc).toBe("2026-01-04T23:00:00.000Z")
      expect(offset.journalDate).toBe("2026-01-04")
      const patched = yield* send("PATCH", `/api/v1/users/${user.id}`, {
        bearer: apiKey,
        json: { timezone: "America/New_York" }
      })
      expect(patched.status, preview(patched)).toBe(200)
      const byUserZone = yield* create(token, user.id, { entryKind: "Water", consumedAtUtc: "2026-01-05T03:00:00Z" })
      expect(byUserZone.timezone).toBe("America/New_York")
      expect(byUserZone.journalDate).toBe("2026-01-04")
    }))

  it.effect("the list of a date has exactly that date's entries, in list form, by consumedAtUtc", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-list")
      const second = yield* create(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-02-10T19:00:00Z" })
      const first = yield* create(token, user.id, { entryKind: "Coffee", consumedAtUtc: "2026-02-10T07:00:00Z" })
      yield* create(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-02-11T07:00:00Z" })
      const patched = yield* send("PATCH", `${entries(user.id)}/${second.id}`, {
        bearer: token,
        json: { items: [{ name: "Soup", quantity: 1, unit: "bowl" }, { name: "Bread", quantity: 2, unit: "slice" }] }
      })
      expect(patched.status, preview(patched)).toBe(200)
      const reply = yield* send("GET", `${entries(user.id)}?date=2026-02-10`, { bearer: token })
      expect(reply.status, preview(reply)).toBe(200)
      const list: Array<any> = json(reply)
      expect(list.map((e) => e.id)).toEqual([first.id, second.id])
      for (const e of list) expect(Object.keys(e).sort()).toEqual(listKeys)
      expect(list.map((e) => [e.itemCount, e.hasImage])).toEqual([[0, false], [2, false]])
      const empty = yield* send("GET", `${entries(user.id)}?date=2026-02-12`, { bearer: token })
      expect(json(empty)).toEqual([])
    }))

  it.effect("the spec's correction: the supplied item becomes the only item and sets nutrients and title", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-patch-spec")
      const entry = yield* create(token, user.id, {
        entryKind: "Meal",
        consumedAtUtc: "2026-01-05T12:30:00Z",
        nutrients: { caloriesKcal: 700, proteinGrams: 30 }
      })
      const itemNutrients = { caloriesKcal: 95, carbsGrams: 25, fiberGrams: 4.4 }
      const reply = yield* send("PATCH", `${entries(user.id)}/${entry.id}`, {
        bearer: token,
        json: { items: [{ name: "Apple", quantity: 1, unit: "piece", nutrients: itemNutrients }] }
      })
      expect(reply.status, preview(reply)).toBe(200)
      const patched = json(reply)
      expect(patched.items).toHaveLength(1)
      const item = patched.items[0]
      expect(item).toMatchObject({
        name: "Apple",
        category: "",
        quantity: 1,
        unit: "piece",
        estimatedWeightGrams: null,
        confidence: null,
        sortOrder: 0
      })
      expect(item.id).toMatch(/^[0-9a-f-]{36}$/)
      expect(Object.keys(item.nutrients).sort()).toEqual(nutrientKeys)
      expect(item.nutrients).toMatchObject({ ...itemNutrients, proteinGrams: null, volumeMl: null })
      expect(patched.nutrients).toEqual(item.nutrients)
      expect(patched.title).toBe("Apple")
      expect(patched.isUserEdited).toBe(true)
      expect(patched.analysisStatus).toBe("None")
      expect(patched.entrySource).toBe("Manual")
      expect(Date.parse(patched.updatedAt)).toBeGreaterThan(Date.parse(entry.updatedAt))
      expect(patched.createdAt).toBe(entry.createdAt)
      const read = yield* send("GET", `${entries(user.id)}/${entry.id}`, { bearer: token })
      expect(json(read)).toEqual(patched)
    }))

  it.effect("items replace all earlier items in list order; entry nutrients sum what is known", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-patch-items")
      const entry = yield* create(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-01-05T12:30:00Z" })
      const path = `${entries(user.id)}/${entry.id}`
      yield* send("PATCH", path, { bearer: token, json: { items: [{ name: "Old", quantity: 1, unit: "piece" }] } })
      const reply = yield* send("PATCH", path, {
        bearer: token,
        json: {
          items: [
            { name: "Rice", quantity: 150, unit: "g", nutrients: { caloriesKcal: 195, proteinGrams: 4 } },
            { name: "Chicken", quantity: 120, unit: "g", nutrients: { caloriesKcal: 198.5, sodiumMg: 89 } },
            { name: "Salad", quantity: 1, unit: "bowl" }
          ]
        }
      })
      expect(reply.status, preview(reply)).toBe(200)
      const patched = json(reply)
      expect(patched.items.map((i: any) => [i.name, i.sortOrder])).toEqual([["Rice", 0], ["Chicken", 1], ["Salad", 2]])
      expect(patched.title).toBe("Rice, Chicken, Salad")
      expect(patched.nutrients).toMatchObject({
        caloriesKcal: 393.5,
        proteinGrams: 4,
        sodiumMg: 89,
        fatGrams: null
      })
      // nutrients are only for entries without items
      const refused = yield* send("PATCH", path, { bearer: token, json: { nutrients: { caloriesKcal: 1 } } })
      expectError(refused, 400, "BadRequest")
      // a title given with the items wins over the items' names
      const titled = json(
        yield* send("PATCH", path, {
          bearer: token,
          json: { title: "Lunch bowl", items: [{ name: "Rice", quantity: 1, unit: "cup" }] }
        })
      )
      expect(titled.title).toBe("Lunch bowl")
    }))

  it.effect("a correction without items merges nutrients and moves the entry with its time and zone", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-patch-fields")
      const entry = yield* create(token, user.id, {
        entryKind: "Drink",
        consumedAtUtc: "2026-03-01T10:00:00Z",
        notes: "juice",
        nutrients: { caloriesKcal: 110, volumeMl: 250 }
      })
      const reply = yield* send("PATCH", `${entries(user.id)}/${entry.id}`, {
        bearer: token,
        json: {
          entryKind: "Water",
          consumedAtUtc: "2026-03-01T23:30:00Z",
          timezone: "Asia/Tokyo",
          notes: null,
          nutrients: { caloriesKcal: 0, sugarGrams: 0 }
        }
      })
      expect(reply.status, preview(reply)).toBe(200)
      const patched = json(reply)
      expect(patched).toMatchObject({
        entryKind: "Water",
        consumedAtUtc: "2026-03-01T23:30:00.000Z",
        timezone: "Asia/Tokyo",
        journalDate: "2026-03-02",
        notes: null,
        isUserEdited: true,
        title: "Drink"
      })
      expect(patched.nutrients).toMatchObject({ caloriesKcal: 0, sugarGrams: 0, volumeMl: 250, proteinGrams: null })
      const moved = json(yield* send("GET", `${entries(user.id)}?date=2026-03-02`, { bearer: token }))
      expect(moved.map((e: any) => e.id)).toEqual([entry.id])
    }))

  it.effect("invalid bodies and parameters are 400 and store nothing", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-invalid")
      const entry = yield* create(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-04-01T12:00:00Z" })
      const base = entries(user.id)
      const ok = { entryKind: "Meal", consumedAtUtc: "2026-04-01T12:00:00Z" }
      const bad: ReadonlyArray<readonly [string, Method, string, RequestOptions]> = [
        ["unknown entry kind", "POST", base, { json: { ...ok, entryKind: "Snack" } }],
        ["missing entry kind", "POST", base, { json: { consumedAtUtc: ok.consumedAtUtc } }],
        ["missing consumedAtUtc", "POST", base, { json: { entryKind: "Meal" } }],
        ["date without time", "POST", base, { json: { ...ok, consumedAtUtc: "2026-04-01" } }],
        ["timestamp without zone", "POST", base, { json: { ...ok, consumedAtUtc: "2026-04-01T12:00:00" } }],
        ["words for a timestamp", "POST", base, { json: { ...ok, consumedAtUtc: "yesterday" } }],
        ["impossible timestamp", "POST", base, { json: { ...ok, consumedAtUtc: "2026-02-30T25:00:00Z" } }],
        ["negative nutrient", "POST", base, { json: { ...ok, nutrients: { caloriesKcal: -1 } } }],
        ["non-numeric nutrient", "POST", base, { json: { ...ok, nutrients: { caloriesKcal: "12" } } }],
        ["unknown nutrient", "POST", base, { json: { ...ok, nutrients: { alcoholGrams: 3 } } }],
        ["unknown field", "POST", base, { json: { ...ok, rating: 5 } }],
        ["unknown time zone", "POST", base, { json: { ...ok, timezone: "Mars/Olympus" } }],
        ["empty title", "POST", base, { json: { ...ok, title: "" } }],
        ["list without date", "GET", base, {}],
        ["list with malformed date", "GET", `${base}?date=2026-4-1`, {}],
        ["list with impossible date", "GET", `${base}?date=2026-02-30`, {}],
        ["malformed entry id", "GET", `${base}/not-a-uuid`, {}],
        ["patch with unknown field", "PATCH", `${base}/${entry.id}`, { json: { colour: "red" } }],
        ["patch with unknown item field", "PATCH", `${base}/${entry.id}`, {
          json: { items: [{ name: "Apple", quantity: 1, unit: "piece", brand: "x" }] }
        }],
        ["patch item without name", "PATCH", `${base}/${entry.id}`, { json: { items: [{ quantity: 1, unit: "g" }] } }],
        ["patch item with negative quantity", "PATCH", `${base}/${entry.id}`, {
          json: { items: [{ name: "Apple", quantity: -1, unit: "piece" }] }
        }],
        ["patch with negative nutrient", "PATCH", `${base}/${entry.id}`, { json: { nutrients: { fatGrams: -2 } } }],
        ["patch with malformed timestamp", "PATCH", `${base}/${entry.id}`, { json: { consumedAtUtc: "noon" } }],
        ["malformed JSON", "POST", base, { body: "{\"entryKind\": " }]
      ]
      for (const [label, method, path, options] of bad) {
        const reply = yield* send(method, path, { ...options, bearer: token })
        expect(reply.status, `${label}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400)
      }
      const all = json(yield* send("GET", `${base}?date=2026-04-01`, { bearer: token }))
      expect(all).toHaveLength(1)
      const unchanged = json(yield* send("GET", `${base}/${entry.id}`, { bearer: token }))
      expect(unchanged).toEqual(entry)
    }))

  it.effect("an entry of another user, or an unknown one, is 404 on read and correction", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("journal-alice")
      const bob = yield* createUser("journal-bob")
      const entry = yield* create(alice.token, alice.user.id, {
        entryKind: "Meal",
        consumedAtUtc: "2026-01-05T12:30:00Z"
      })
      for (const id of [entry.id, unknownId()]) {
        expectError(yield* send("GET", `${entries(bob.user.id)}/${id}`, { bearer: bob.token }), 404, "NotFound")
        expectError(
          yield* send("PATCH", `${entries(bob.user.id)}/${id}`, { bearer: bob.token, json: { title: "mine" } }),
          404,
          "NotFound"
        )
        expectError(yield* send("GET", `${entries(bob.user.id)}/${id}/image`, { bearer: bob.token }), 404, "NotFound")
      }
      const list = json(yield* send("GET", `${entries(bob.user.id)}?date=2026-01-05`, { bearer: bob.token }))
      expect(list).toEqual([])
      const still = json(yield* send("GET", `${entries(alice.user.id)}/${entry.id}`, { bearer: alice.token }))
      expect(still.title).toBe("Meal")
    }))

  it.effect("journal endpoints need the user's own token: 401 without one or with an API key, 403 for another user", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("journal-credentials")
      const other = yield* createUser("journal-credentials-other")
      const calls: ReadonlyArray<readonly [Method, (userId: string) => string, RequestOptions]> = [
        ["POST", entries, { json: { entryKind: "Water", consumedAtUtc: "2026-01-05T08:00:00Z" } }],
        ["GET", (u) => `${entries(u)}?date=2026-01-05`, {}],
        ["GET", (u) => `${entries(u)}/${unknownId()}`, {}],
        ["PATCH", (u) => `${entries(u)}/${unknownId()}`, { json: { title: "x" } }],
        ["GET", (u) => `${entries(u)}/${unknownId()}/image`, {}]
      ]
      for (const [method, path, options] of calls) {
        expectError(yield* send(method, path(user.id), options), 401, "Unauthorized")
        expectError(yield* send(method, path(user.id), { ...options, bearer: apiKey }), 401, "Unauthorized")
        expectError(yield* send(method, path(other.user.id), { ...options, bearer: token }), 403, "Forbidden")
        const legacy = yield* send(method, path(user.id), { ...options, headers: { "x-user-token": token } })
        expect(legacy.status, `${method} legacy header: ${preview(legacy)}`).not.toBe(401)
      }
    }))
})
