/**
 * Hostile input at the edge, end to end: NUL characters and lone surrogates in every kind of string
 * that comes in, deeply nested JSON, impossible timestamps, oversize and multi-line URLs, forged
 * images, malformed ids and multipart envelopes. Each is a 4xx with the JSON error body
 * `{ _tag, message }` (never a 500), and changes nothing; ids are compared as UUIDs in any case.
 */
import { expect, it } from "@effect/vitest"
import { createApp, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { makeJpeg, makePng, makeWebp } from "../journal/fixtures/Images.js"
import { entriesPath, scanForm } from "../journal/fixtures/Journal.js"

const redirectUrl = "https://app.example.com/done"
const nul = "\u0000"
/** 10,000 arrays nested in one another, as JSON text. */
const deep = "[".repeat(10_000) + "]".repeat(10_000)
const consumedAtUtc = "2026-01-05T12:30:00Z"

/** The entries of the journal date of `consumedAtUtc` (UTC). */
const entriesOf = (token: string, userId: string) =>
  Effect.map(send("GET", `${entriesPath(userId)}?date=2026-01-05`, { bearer: token }), (reply) => {
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as Array<{ readonly id: string }>
  })

const expectNoUser = (apiKey: string, externalUserId: string) =>
  Effect.map(
    send("GET", `/api/v1/users?external_user_id=${encodeURIComponent(externalUserId)}`, { bearer: apiKey }),
    (reply) => expectError(reply, 404, "NotFound")
  )

it.layer(makeTestServer({ sandbox: true }), { timeout: "180 seconds" })("hostile input", (it) => {
  it.effect("NUL in externalUserId or external_user_id answers 400 and creates nothing", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: `a${nul}b` } })
      expect(expectError(created, 400, "HttpApiDecodeError").message).toBe(
        "externalUserId: must not contain NUL characters"
      )
      for (const query of ["%FF", "%ED%A0%80", "a%0Ab", "x".repeat(256)]) {
        const reply = yield* send("GET", `/api/v1/users?external_user_id=${query}`, { bearer: apiKey })
        expect(reply.status, `${query.slice(0, 20)}: ${preview(reply)}`).toBeGreaterThanOrEqual(400)
        expect(reply.status).toBeLessThan(500)
        expectError(reply, reply.status)
      }
      const found = yield* send("GET", "/api/v1/users?external_user_id=a%00b", { bearer: apiKey })
      expect(expectError(found, 400, "HttpApiDecodeError").message).toMatch(/^external_user_id: .*NUL/)
      yield* expectNoUser(apiKey, "ab")
      yield* expectNoUser(apiKey, "a")
    }))

  it.effect("NUL or a lone surrogate in metadata answers 400 and changes nothing", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("metadata-nul")
      for (
        const body of [
          `{"metadata":{"k":"a\\u0000b"}}`,
          `{"metadata":{"a\\u0000":1}}`,
          `{"metadata":{"k":["\\ud800"]}}`
        ]
      ) {
        expectError(yield* send("PATCH", `/api/v1/users/${user.id}`, { bearer: apiKey, body }), 400)
      }
      const read = json(yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey }))
      expect(read.metadata).toEqual({})
    }))

  it.effect("decode errors carry a short message naming the field beside the issues", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const reply = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "" } })
      const body = expectError(reply, 400, "HttpApiDecodeError") as { message: string; issues?: unknown }
      expect(body.message).toBe("externalUserId: expected a non-empty string")
      expect(Array.isArray(body.issues)).toBe(true)
    }))

  it.effect("a 10,000-level nested value in one field answers 400 on endpoints 1, 4, 7, 16 and 20", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("deep")
      const entry = json(
        yield* send("POST", entriesPath(user.id), { bearer: token, json: { entryKind: "Meal", consumedAtUtc } })
      )
      const cases = [
        ["POST", "/api/v1/users", apiKey, `{"externalUserId":${deep}}`],
        ["PATCH", `/api/v1/users/${user.id}`, apiKey, `{"metadata":{"k":${deep}}}`],
        ["POST", `/api/v1/users/${user.id}/connections/sessions`, token, `{"provider":"Fitbit","redirectUrl":${deep}}`],
        [
          "POST",
          entriesPath(user.id),
          token,
          `{"entryKind":"Meal","consumedAtUtc":"${consumedAtUtc}","title":${deep}}`
        ],
        ["PATCH", `${entriesPath(user.id)}/${entry.id}`, token, `{"notes":${deep}}`]
      ] as const
      for (const [method, path, bearer, body] of cases) {
        const reply = yield* send(method, path, { bearer, body })
        expect(reply.status, `${method} ${path}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400, "BadRequest")
      }
      const read = json(yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey }))
      expect(read.metadata).toEqual({})
      expect((yield* entriesOf(token, user.id)).length).toBe(1)
    }))

  it.effect("NUL in a journal title or notes answers 400 on create and patch and changes nothing", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("journal-nul")
      for (const field of [{ title: `tea${nul}` }, { notes: `a${nul}b` }]) {
        const reply = yield* send("POST", entriesPath(user.id), {
          bearer: token,
          json: { entryKind: "Drink", consumedAtUtc, ...field }
        })
        expectError(reply, 400, "HttpApiDecodeError")
      }
      expect(yield* entriesOf(token, user.id)).toEqual([])
      const entry = json(
        yield* send("POST", entriesPath(user.id), {
          bearer: token,
          json: { entryKind: "Drink", consumedAtUtc, title: "tea", notes: "two lines\nand a\ttab" }
        })
      )
      expect(entry.notes).toBe("two lines\nand a\ttab")
      for (const field of [{ title: `tea${nul}` }, { notes: `a${nul}b` }, { title: "a\nb" }]) {
        const reply = yield* send("PATCH", `${entriesPath(user.id)}/${entry.id}`, { bearer: token, json: field })
        expectError(reply, 400, "HttpApiDecodeError")
      }
      const read = json(yield* send("GET", `${entriesPath(user.id)}/${entry.id}`, { bearer: token }))
      expect(read).toMatchObject({ title: "tea", notes: "two lines\nand a\ttab", isUserEdited: false })
    }))

  it.effect("an impossible or out-of-range consumedAtUtc answers 400 on create, patch and scan", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("feb-30")
      for (
        const bad of [
          "2026-02-30T00:00:00Z",
          "2026-01-05T24:00:00Z",
          "2026-01-05T12:60:00Z",
          "2026-13-01T00:00:00Z",
          // Its day is already in the year 10000 east of UTC.
          "9999-12-31T23:59:59Z",
          "1899-12-31T23:59:59Z"
        ]
      ) {
        const created = yield* send("POST", entriesPath(user.id), {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: bad }
        })
        expectError(created, 400, "HttpApiDecodeError")
        const scanned = yield* send("POST", `${entriesPath(user.id)}/scans`, {
          bearer: token,
          formData: scanForm({ bytes: makePng(8, 8, 3), type: "image/png", name: "a.png" }, { consumedAtUtc: bad })
        })
        expectError(scanned, 400)
      }
      expect(yield* entriesOf(token, user.id)).toEqual([])
      const entry = json(
        yield* send("POST", entriesPath(user.id), { bearer: token, json: { entryKind: "Meal", consumedAtUtc } })
      )
      const patched = yield* send("PATCH", `${entriesPath(user.id)}/${entry.id}`, {
        bearer: token,
        json: { consumedAtUtc: "2026-02-30T00:00:00Z" }
      })
      expectError(patched, 400, "HttpApiDecodeError")
      const read = json(yield* send("GET", `${entriesPath(user.id)}/${entry.id}`, { bearer: token }))
      expect(read.consumedAtUtc).toBe("2026-01-05T12:30:00.000Z")
    }))

  it.effect("NUL in a scan's notes answers 400 and stores nothing", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("scan-nul")
      const reply = yield* send("POST", `${entriesPath(user.id)}/scans`, {
        bearer: token,
        formData: scanForm({ bytes: makePng(8, 8, 4), type: "image/png", name: "a.png" }, {
          consumedAtUtc,
          notes: `eggs${nul}`
        })
      })
      expectError(reply, 400)
      expect(yield* entriesOf(token, user.id)).toEqual([])
    }))

  it.effect("a PNG signature followed by garbage answers 415 and stores nothing", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("forged-png")
      const valid = makePng(16, 16, 5)
      const garbage = new Uint8Array(2000).map((_, i) => (i * 37 + 11) & 0xff)
      const forged = [
        new Uint8Array([...valid.subarray(0, 8), ...garbage]),
        // A real IHDR, then garbage.
        new Uint8Array([...valid.subarray(0, 33), ...garbage]),
        // A damaged IDAT: its CRC no longer matches.
        valid.map((b, i) => (i === 45 ? b ^ 0xff : b)),
        // No IEND.
        valid.subarray(0, valid.length - 12)
      ]
      for (const bytes of forged) {
        const reply = yield* send("POST", `${entriesPath(user.id)}/scans`, {
          bearer: token,
          formData: scanForm({ bytes, type: "image/png", name: "a.png" }, { consumedAtUtc })
        })
        expectError(reply, 415, "UnsupportedMediaType")
      }
      expect(yield* entriesOf(token, user.id)).toEqual([])
    }))

  it.effect("a JPEG or WebP start followed by garbage answers 415; whole ones are accepted", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("forged-jpeg")
      const garbage = new Uint8Array(2000).map((_, i) => (i * 53 + 7) & 0xff)
      const jpeg = makeJpeg(32, 16)
      const webp = makeWebp(24, 12)
      const forged = [
        { bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...garbage]), type: "image/jpeg" },
        // Everything up to the scan, then garbage without an end-of-image marker.
        {
          bytes: new Uint8Array([...jpeg.subarray(0, jpeg.length - 2), ...garbage.filter((b) => b !== 0xff)]),
          type: "image/jpeg"
        },
        { bytes: new Uint8Array([...webp.subarray(0, 16), ...garbage]), type: "image/webp" },
        // The RIFF size says more than the file holds.
        { bytes: webp.map((b, i) => (i === 4 ? b + 8 : b)), type: "image/webp" }
      ]
      for (const { bytes, type } of forged) {
        const reply = yield* send("POST", `${entriesPath(user.id)}/scans`, {
          bearer: token,
          formData: scanForm({ bytes, type, name: "a.img" }, { consumedAtUtc })
        })
        expectError(reply, 415, "UnsupportedMediaType")
      }
      expect(yield* entriesOf(token, user.id)).toEqual([])
      for (const [bytes, type, size] of [[jpeg, "image/jpeg", [32, 16]], [webp, "image/webp", [24, 12]]] as const) {
        const reply = yield* send("POST", `${entriesPath(user.id)}/scans`, {
          bearer: token,
          formData: scanForm({ bytes, type, name: "a.img" }, { consumedAtUtc })
        })
        expect(reply.status, preview(reply)).toBe(202)
        expect(json(reply).image).toMatchObject({ contentType: type, width: size[0], height: size[1] })
      }
    }))

  it.effect("a scan without a valid credential and without a multipart type answers 401 before 415", () =>
    Effect.gen(function*() {
      const { user } = yield* createUser("scan-401")
      const reply = yield* send("POST", `${entriesPath(user.id)}/scans`, { body: "{}", contentType: "text/plain" })
      expectError(reply, 401, "Unauthorized")
      const noType = yield* send("POST", `${entriesPath(user.id)}/scans`, {})
      expectError(noType, 401, "Unauthorized")
      // A credential that is there but not valid is checked before the envelope too.
      for (const bearer of ["pb_ut_not-a-real-token", "pb_ut_" + "A".repeat(43)]) {
        const forged = yield* send("POST", `${entriesPath(user.id)}/scans`, {
          bearer,
          body: "{}",
          contentType: "text/plain"
        })
        expectError(forged, 401, "Unauthorized")
      }
    }))

  it.effect("a multipart type with an empty boundary answers 415 with a JSON body", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("boundary")
      for (const contentType of ["multipart/form-data; boundary=", "multipart/form-data; boundary=\"\""]) {
        const reply = yield* send("POST", `${entriesPath(user.id)}/scans`, {
          bearer: token,
          body: "--\r\n\r\n",
          contentType
        })
        expectError(reply, 415, "UnsupportedMediaType")
      }
      expect(yield* entriesOf(token, user.id)).toEqual([])
    }))

  it.effect("NUL, a lone surrogate, CR/LF or 100 KB in a connect session's fields answer 400", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("session-input")
      const path = `/api/v1/users/${user.id}/connections/sessions`
      const bodies = [
        JSON.stringify({ provider: "Fitbit", redirectUrl, scopes: `activity${nul}` }),
        `{"provider":"Fitbit","redirectUrl":"${redirectUrl}","scopes":"activity \\ud800"}`,
        `{"provider":"Fitbit","redirectUrl":"${redirectUrl}","scopes":"activity \\udc00 sleep"}`,
        JSON.stringify({ provider: "Fitbit", redirectUrl: `${redirectUrl}?a=1\r\nSet-Cookie: x=1` }),
        JSON.stringify({ provider: "Fitbit", redirectUrl: `${redirectUrl}\n` }),
        JSON.stringify({ provider: "Fitbit", redirectUrl: `${redirectUrl}?pad=${"p".repeat(100_000)}` }),
        JSON.stringify({
          provider: "Fitbit",
          redirectUrl: `${redirectUrl}?pad=${"p".repeat(2049 - redirectUrl.length - 5)}`
        }),
        JSON.stringify({ provider: "Fitbit", redirectUrl: `${redirectUrl}${nul}` })
      ]
      for (const body of bodies) {
        const reply = yield* send("POST", path, { bearer: token, body })
        expect(reply.status, `${body.slice(0, 120)}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400, "HttpApiDecodeError")
      }
      // 2,048 characters is still accepted.
      const longest = `${redirectUrl}?pad=${"p".repeat(2048 - redirectUrl.length - 5)}`
      expect(longest.length).toBe(2048)
      const accepted = yield* send("POST", path, { bearer: token, json: { provider: "Fitbit", redirectUrl: longest } })
      expect(accepted.status, preview(accepted)).toBe(200)
    }))

  it.effect("NUL or control characters in the OAuth callbacks' query answer 400 without a credential", () =>
    Effect.gen(function*() {
      for (
        const path of [
          "/api/v1/connections/callback/oauth1?oauth_token=a%00b&oauth_verifier=v",
          "/api/v1/connections/callback/oauth1?oauth_token=t&oauth_verifier=%0D%0A",
          "/api/v1/connections/callback?code=a%00b&state=s",
          "/api/v1/connections/callback?code=c&state=s%00",
          `/api/v1/connections/callback?code=c&state=${"s".repeat(600)}`,
          "/api/v1/connections/callback?code=c&state=%ED%A0%80",
          "/api/v1/connections/callback?code=%FF&state=s"
        ]
      ) {
        const reply = yield* send("GET", path)
        expect(reply.status, `${path.slice(0, 80)}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400)
      }
    }))

  it.effect("weekly scores over the last days of year 9999 answer 400", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("year-9999")
      const reply = yield* send("GET", "/api/v1/scores/weekly?from=9999-12-27&to=9999-12-31", { bearer: token })
      expect(expectError(reply, 400, "HttpApiDecodeError").message).toContain("9999-12-26")
      const last = yield* send("GET", "/api/v1/scores/weekly?from=9999-12-20&to=9999-12-26", { bearer: token })
      expect(last.status, preview(last)).toBe(200)
      const daily = yield* send("GET", "/api/v1/scores/daily?from=9999-12-27&to=9999-12-31", { bearer: token })
      expect(daily.status, preview(daily)).toBe(200)
    }))

  it.effect("ids 5,000 characters long or not valid UTF-8 answer 400, not 404", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("long-ids")
      const long = "a".repeat(5000)
      const replies = [
        yield* send("GET", `/api/v1/users/${long}`, { bearer: apiKey }),
        yield* send("GET", "/api/v1/users/%FF", { bearer: apiKey }),
        yield* send("GET", `/api/v1/users/${user.id}/journal-entries/${long}`, { bearer: token }),
        yield* send("GET", `/api/v1/users/${user.id}/journal-entries/%FF%FE`, { bearer: token }),
        yield* send("DELETE", `/api/v1/users/${user.id}/connections/${long}`, { bearer: token }),
        yield* send("GET", `/api/v1/users/${user.id}/connections/%C3%28/activity/2026-01-05`, { bearer: token }),
        yield* send("GET", "/api/v1/users/not-a-uuid", { bearer: apiKey })
      ]
      for (const reply of replies) expectError(reply, 400)
    }))

  it.effect("the user's own id in upper case is the same user on every endpoint", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("upper-case")
      const upper = user.id.toUpperCase()
      expect(upper).not.toBe(user.id)
      const read = yield* send("GET", `/api/v1/users/${upper}`, { bearer: apiKey })
      expect(read.status, preview(read)).toBe(200)
      expect(json(read).id).toBe(user.id)
      const listed = yield* send("GET", `/api/v1/users/${upper}/connections`, { bearer: token })
      expect(listed.status, preview(listed)).toBe(200)
      const created = yield* send("POST", entriesPath(upper), {
        bearer: token,
        json: { entryKind: "Water", consumedAtUtc }
      })
      expect(created.status, preview(created)).toBe(201)
      const entry = json(created)
      const byUpper = yield* send("GET", `${entriesPath(upper)}/${entry.id.toUpperCase()}`, { bearer: token })
      expect(byUpper.status, preview(byUpper)).toBe(200)
      expect(json(byUpper).id).toBe(entry.id)
      const other = yield* createUser("upper-case-other")
      const foreign = yield* send("GET", `/api/v1/users/${other.user.id.toUpperCase()}/connections`, { bearer: token })
      expectError(foreign, 403)
    }))
})
