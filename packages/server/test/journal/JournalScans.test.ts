/**
 * Meal-photo scans end to end (endpoint 17 and the photo read), with the sandbox analyser: the
 * OpenAI-compatible simulator mounted on the server and called over HTTPS by the `openai` analyser
 * code. Covers the 202 Pending answer, the background analysis to Completed, retries of transient
 * failures, failures kept with their reason, an edit winning over a late result, and refused uploads
 * storing nothing.
 */
import { expect, layer } from "@effect/vitest"
import * as Simulators from "@pulsebridge/sandbox"
import { createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { gif, makeJpeg, makePng, makeWebp } from "./fixtures/Images.js"
import {
  awaitProcessed,
  entriesPath,
  getBytes,
  isSettled,
  pollEntry,
  pollUntil,
  scan,
  scanForm
} from "./fixtures/Journal.js"

const sim = (method: "GET" | "POST" | "DELETE", route: string, body?: unknown) =>
  send(method, `/sandbox/analyzer${route}`, body === undefined ? {} : { json: body })

const injectFault = (kind: string, count = 1) =>
  Effect.gen(function*() {
    const reply = yield* sim("POST", "/_sim/faults", { kind, count })
    expect(reply.status, preview(reply)).toBe(200)
  })

const sha256 = (bytes: Uint8Array) => crypto.createHash("sha256").update(bytes).digest("hex")

const blobFiles = Effect.map(TestServer, ({ dataDir }) => {
  const root = path.join(dataDir, "blobs")
  if (!fs.existsSync(root)) return [] as Array<string>
  return (fs.readdirSync(root, { recursive: true }) as Array<string>)
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
})

layer(makeTestServer({ analyzer: "sandbox" }), { timeout: "180 seconds", excludeTestServices: true })(
  "journal scans",
  (it) => {
    it.effect("a scan answers 202 Pending with image metadata, then completes with items, nutrients and a title", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("scan-complete")
        const bytes = makePng(64, 48, 101)
        const entry = yield* scan(
          token,
          user.id,
          scanForm({ bytes, type: "image/png", name: "lunch.png" }, {
            entryKind: "Meal",
            consumedAtUtc: "2026-01-05T12:30:00Z",
            timezone: "Europe/Berlin",
            notes: "lunch at work"
          })
        )
        expect(entry).toMatchObject({
          entryKind: "Meal",
          entrySource: "AiImage",
          analysisStatus: "Pending",
          notes: "lunch at work",
          journalDate: "2026-01-05",
          timezone: "Europe/Berlin",
          isUserEdited: false,
          items: [],
          analysis: { analyzer: "sandbox", model: Simulators.sandboxModel, reason: null, finishedAt: null }
        })
        expect(Object.values(entry.nutrients).every((v) => v === null)).toBe(true)
        expect(Object.keys(entry.nutrients)).toHaveLength(9)
        expect(entry.image).toMatchObject({
          storageProvider: "local",
          fileName: "lunch.png",
          contentType: "image/png",
          sizeBytes: bytes.length,
          width: 64,
          height: 48
        })

        const done = yield* pollEntry(token, user.id, entry.id, isSettled)
        expect(done.analysisStatus, JSON.stringify(done)).toBe("Completed")
        const meal = Simulators.sandboxMealFor(sha256(bytes))
        expect(done.items.map((i: any) => i.name)).toEqual(meal.map((i) => i.name))
        expect(done.items.map((i: any) => i.sortOrder)).toEqual(meal.map((_, index) => index))
        expect(done.title).toBe(meal.map((i) => i.name).join(", "))
        for (const item of done.items) {
          expect(item.category, item.name).not.toBe("")
          expect(item.nutrientSource, item.name).toBe("FoodTable")
          expect(item.foodSourceId, item.name).toMatch(/^(usda-sr|derived):/)
          expect(item.estimatedWeightGrams, item.name).toBeGreaterThan(0)
          expect(item.confidence, item.name).toBeGreaterThan(0)
          expect(item.confidence, item.name).toBeLessThanOrEqual(1)
          expect(item.nutrients.caloriesKcal, item.name).not.toBeNull()
        }
        const calories = done.items.reduce((sum: number, i: any) => sum + i.nutrients.caloriesKcal, 0)
        expect(done.nutrients.caloriesKcal).toBeCloseTo(calories, 1)
        expect(done.nutrients.caloriesKcal).toBeGreaterThan(0)
        expect(done.analysis).toMatchObject({ analyzer: "sandbox", reason: null })
        expect(done.analysis.finishedAt).not.toBeNull()
        expect(done.isUserEdited).toBe(false)
        expect(done.image).toEqual(entry.image)

        const list: Array<any> = json(
          yield* send("GET", `${entriesPath(user.id)}?date=2026-01-05`, { bearer: token })
        )
        expect(list.find((e) => e.id === entry.id)).toMatchObject({ itemCount: meal.length, hasImage: true })
      }))

    it.effect("the stored photo is served back byte for byte with its content type", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("scan-image")
        const cases = [
          { bytes: makePng(10, 20, 202), type: "image/png", name: "a.png", contentType: "image/png", size: [10, 20] },
          { bytes: makeJpeg(640, 480), type: "image/jpeg", name: "b.jpg", contentType: "image/jpeg", size: [640, 480] },
          // what the file is counts, not what the client says
          {
            bytes: makeWebp(320, 200),
            type: "application/octet-stream",
            name: "c",
            contentType: "image/webp",
            size: [
              320,
              200
            ]
          }
        ]
        for (const c of cases) {
          const entry = yield* scan(token, user.id, scanForm(c, {}))
          expect(entry.image).toMatchObject({ contentType: c.contentType, width: c.size[0], height: c.size[1] })
          expect(entry.entryKind).toBe("Meal")
          const reply = yield* getBytes(`${entriesPath(user.id)}/${entry.id}/image`, token)
          expect(reply.status).toBe(200)
          expect(reply.headers["content-type"]).toBe(c.contentType)
          expect(reply.bytes.length).toBe(c.bytes.length)
          expect(sha256(reply.bytes)).toBe(sha256(c.bytes))
        }
        const manual = json(
          yield* send("POST", entriesPath(user.id), {
            bearer: token,
            json: { entryKind: "Meal", consumedAtUtc: "2026-01-05T12:30:00Z" }
          })
        )
        expectError(
          yield* send("GET", `${entriesPath(user.id)}/${manual.id}/image`, { bearer: token }),
          404,
          "NotFound"
        )
      }))

    it.effect("transient analyser failures (503, 429) are retried and the analysis still completes", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("scan-retry")
        yield* injectFault("serverError")
        yield* injectFault("rateLimit")
        const entry = yield* scan(token, user.id, scanForm({ bytes: makePng(8, 8, 303), type: "image/png", name: "x" }))
        const done = yield* pollEntry(token, user.id, entry.id, isSettled, "45 seconds")
        expect(done.analysisStatus, JSON.stringify(done)).toBe("Completed")
        const calls = json(yield* sim("GET", "/_sim/calls")).calls as Array<any>
        const mine = calls.filter((c) => c.imageSha256 === sha256(makePng(8, 8, 303)))
        expect(mine.map((c) => c.status)).toEqual([503, 429, 200])
      }))

    it.effect("an answer that is not food, or not valid JSON, ends Failed with the reason; the entry stays editable", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("scan-failed")
        yield* injectFault("notFood")
        const cat = yield* scan(token, user.id, scanForm({ bytes: makePng(8, 8, 404), type: "image/png", name: "cat" }))
        const failed = yield* pollEntry(token, user.id, cat.id, isSettled)
        expect(failed.analysisStatus).toBe("Failed")
        expect(failed.analysis.reason).toMatch(/no food/i)
        expect(failed.items).toEqual([])
        expect(Object.values(failed.nutrients).every((v) => v === null)).toBe(true)

        yield* injectFault("malformedJson")
        const garbled = yield* scan(
          token,
          user.id,
          scanForm({ bytes: makePng(8, 8, 405), type: "image/png", name: "g" })
        )
        const invalid = yield* pollEntry(token, user.id, garbled.id, isSettled)
        expect(invalid.analysisStatus).toBe("Failed")
        expect(invalid.analysis.reason).toMatch(/schema/i)

        const edited = yield* send("PATCH", `${entriesPath(user.id)}/${cat.id}`, {
          bearer: token,
          json: { items: [{ name: "Salad", quantity: 1, unit: "bowl", nutrients: { caloriesKcal: 150 } }] }
        })
        expect(edited.status, preview(edited)).toBe(200)
        expect(json(edited)).toMatchObject({
          analysisStatus: "Failed",
          title: "Salad",
          isUserEdited: true,
          nutrients: { caloriesKcal: 150 }
        })
      }))

    it.effect("an edit while the analysis is pending wins over the analysis result that arrives later", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("scan-edit-wins")
        yield* injectFault("hold")
        const entry = yield* scan(token, user.id, scanForm({ bytes: makePng(8, 8, 505), type: "image/png", name: "h" }))
        // the analyser has the request and holds its answer
        const calls = yield* pollUntil(Effect.map(sim("GET", "/_sim/calls"), json), (calls) => calls.held >= 1, {
          every: "50 millis",
          within: "20 seconds"
        })
        if (calls.held < 1) expect.fail("the analyser never received the request")
        const edited = yield* send("PATCH", `${entriesPath(user.id)}/${entry.id}`, {
          bearer: token,
          json: { items: [{ name: "Homemade curry", quantity: 1, unit: "plate", nutrients: { caloriesKcal: 640 } }] }
        })
        expect(edited.status, preview(edited)).toBe(200)
        expect(json(edited)).toMatchObject({ analysisStatus: "None", isUserEdited: true, title: "Homemade curry" })
        expect(json(edited).analysis.reason).toMatch(/edited/)
        const release = yield* sim("POST", "/_sim/release")
        expect(release.status).toBe(204)
        yield* awaitProcessed(entry.id)
        const after = json(yield* send("GET", `${entriesPath(user.id)}/${entry.id}`, { bearer: token }))
        expect(after.items.map((i: any) => i.name)).toEqual(["Homemade curry"])
        expect(after.nutrients.caloriesKcal).toBe(640)
        expect(after.analysisStatus).toBe("None")
        expect(after.title).toBe("Homemade curry")
      }))

    it.effect("refused uploads are 4xx JSON and store nothing", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("scan-refused")
        const scans = `${entriesPath(user.id)}/scans`
        const before = yield* blobFiles
        const boundary = "----pulsebridge-test"
        const png = makePng(8, 8, 606)
        const part = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\n` +
              `Content-Type: image/png\r\n\r\n`
          ),
          Buffer.from(png)
        ])
        const big = new Uint8Array(10 * 1024 * 1024 + 1)
        big.set(png)
        const cases: ReadonlyArray<readonly [string, number, () => Effect.Effect<any, never, any>]> = [
          ["an image of 11 MiB sent without a length", 413, () => {
            const huge = new Uint8Array(11 * 1024 * 1024)
            huge.set(png)
            return send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: huge, type: "image/png", name: "x" })
            })
          }],
          ["a body announced over the limit", 413, () =>
            send("POST", scans, {
              bearer: token,
              body: new Uint8Array(11 * 1024 * 1024),
              contentType: `multipart/form-data; boundary=${boundary}`
            })],
          ["no image", 400, () => send("POST", scans, { bearer: token, formData: scanForm(undefined) })],
          ["a GIF", 415, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: gif, type: "image/gif", name: "x.gif" })
            })],
          ["a text file called .jpg", 415, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: new TextEncoder().encode("not an image"), type: "image/jpeg", name: "x.jpg" })
            })],
          ["a truncated JPEG", 415, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: makeJpeg(10, 10).slice(0, 12), type: "image/jpeg", name: "x.jpg" })
            })],
          ["an image over 10 MiB", 413, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: big, type: "image/png", name: "x.png" })
            })],
          ["two images", 400, () => {
            const form = scanForm({ bytes: png, type: "image/png", name: "a.png" })
            form.append("image", new Blob([png], { type: "image/png" }), "b.png")
            return send("POST", scans, { bearer: token, formData: form })
          }],
          ["an unknown entry kind", 400, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: png, type: "image/png", name: "x.png" }, { entryKind: "Snack" })
            })],
          ["a malformed timestamp", 400, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: png, type: "image/png", name: "x.png" }, { consumedAtUtc: "soon" })
            })],
          ["an unknown time zone", 400, () =>
            send("POST", scans, {
              bearer: token,
              formData: scanForm({ bytes: png, type: "image/png", name: "x.png" }, { timezone: "Nowhere/City" })
            })],
          ["a truncated multipart body", 400, () =>
            send("POST", scans, {
              bearer: token,
              body: new Uint8Array(part.subarray(0, part.length - 20)),
              contentType: `multipart/form-data; boundary=${boundary}`
            })],
          ["a multipart body without a closing boundary", 400, () =>
            send("POST", scans, {
              bearer: token,
              body: new Uint8Array(part),
              contentType: `multipart/form-data; boundary=${boundary}`
            })],
          ["garbage with a multipart content type", 400, () =>
            send("POST", scans, {
              bearer: token,
              body: "this is not a form",
              contentType: `multipart/form-data; boundary=${boundary}`
            })],
          ["a JSON body", 415, () => send("POST", scans, { bearer: token, json: { image: "x" } })],
          [
            "multipart without a boundary",
            415,
            () => send("POST", scans, { bearer: token, body: "x", contentType: "multipart/form-data" })
          ]
        ]
        for (const [label, status, call] of cases) {
          const reply = yield* call()
          expect(reply.status, `${label}: ${preview(reply)}`).toBe(status)
          expectError(reply, status)
        }
        const list = json(yield* send("GET", `${entriesPath(user.id)}?date=2026-01-05`, { bearer: token }))
        expect(list).toEqual([])
        expect(yield* blobFiles).toEqual(before)
        // without a credential nothing is read or stored either
        const anonymous = yield* send("POST", scans, {
          formData: scanForm({ bytes: png, type: "image/png", name: "x" })
        })
        expectError(anonymous, 401, "Unauthorized")
      }))
  }
)
