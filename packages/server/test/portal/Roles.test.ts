/**
 * Operators' roles over HTTP, route by route: every route of the portal's API is taken from the served API's
 * definition (so a route added later is covered without touching this file). A viewer gets 403 on every one that
 * changes something, and the database is as it was; it gets every read as an admin does. An admin manages the
 * operators: creates them with a setup link, changes their role, disables and enables them, resets their
 * password; the last active admin can be neither demoted nor disabled.
 *
 * The wire matters: the refusal is the middleware's, before any handler or decoding, for whatever a request
 * carries.
 */
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { OwnAccount, PortalAuth } from "@pulsebridge/portal/api"
import { addConnection, createUser, makeTestServer, portalLogin, portalRequest, TestServer } from "@pulsebridge/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { viewerRefused } from "../../src/portal/operators/PortalAuthLive.js"
import { ServedApi } from "../../src/portal/ServedApi.js"
import { auditOf, loggedInAs, operatorPassword } from "./fixtures.js"

type Endpoint = HttpApiEndpoint.HttpApiEndpoint.AnyWithProps

/** Every endpoint of the served API behind `PortalAuth`, from its definition. */
const portalEndpoints = (): Array<Endpoint> =>
  Object.values(ServedApi.groups as unknown as Record<string, HttpApiGroup.HttpApiGroup.AnyWithProps>).flatMap((
    group
  ) =>
    (Object.values(group.endpoints) as Array<Endpoint>).filter((endpoint) =>
      group.middlewares.has(PortalAuth as any) || endpoint.middlewares.has(PortalAuth as any)
    )
  )

const isOwnAccount = (endpoint: Endpoint) => Context.getOption(endpoint.annotations, OwnAccount)._tag === "Some"

/** The path with its parameters filled from `ids` (an unknown name gets a random uuid). */
const fill = (path: string, ids: Readonly<Record<string, string>>) =>
  path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(ids[name] ?? crypto.randomUUID()))

/**
 * Every table's content, hashed, but the ones a request changes without changing anything: the sessions' last
 * use, the throttles' and rate limits' counters, and the cluster's own bookkeeping.
 */
const fingerprint = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
    order by table_name
  `
  const skip = /^(operator_sessions|login_failures|rate_limit.*|cluster_.*|effect_.*|.*_locks?)$/
  const sums: Record<string, string> = {}
  for (const { name } of tables.filter(({ name }) => !skip.test(name))) {
    const [row] = yield* sql<{ sum: string | null }>`
      select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as sum from ${sql(name)} t
    `
    sums[name] = row!.sum ?? ""
  }
  expect(Object.keys(sums)).toContain("audit_events")
  expect(Object.keys(sums)).toContain("operators")
  return sums
})

layer(makeTestServer(), { timeout: "180 seconds" })("portal roles", (it) => {
  it.effect("a viewer gets 403 on every changing route of the portal's API and changes nothing; it reads as an admin", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const viewer = yield* loggedInAs("viewer")
      // Something of each kind for the routes' parameters to name.
      const { apiKey, app, user } = yield* createUser(`roles-${crypto.randomBytes(3).toString("hex")}`)
      const connection = yield* addConnection(user, "Fitbit")
      const keys = yield* admin.client.get(`/portal/api/apps/${app.id}/keys`)
      const endpoint = yield* admin.client.post(`/portal/api/apps/${app.id}/webhook-endpoints`, {
        json: { url: "https://example.com/hooks/roles" }
      })
      expect(endpoint.status, endpoint.text).toBe(201)
      expect(apiKey).toMatch(/^pb_sk_/)
      const ids: Record<string, string> = {
        appId: app.id,
        userId: user.id,
        keyId: keys.body.data[0].id,
        endpointId: endpoint.body.id,
        connectionId: connection,
        operatorId: admin.id,
        provider: "Fitbit"
      }

      const endpoints = portalEndpoints()
      const changing = endpoints.filter((e) => e.method !== "GET" && e.method !== "HEAD")
      // The routes a viewer may call to change its own account, and no others.
      expect(changing.filter(isOwnAccount).map((e) => `${e.method} ${e.path}`).sort()).toEqual([
        "POST /portal/api/account/password",
        "POST /portal/api/account/second-factor",
        "POST /portal/api/account/second-factor/confirm",
        "POST /portal/api/account/second-factor/disable",
        "POST /portal/api/logout"
      ])
      expect(changing.length).toBeGreaterThan(10)

      const before = yield* fingerprint
      for (const route of changing.filter((e) => !isOwnAccount(e))) {
        const path = fill(route.path, ids)
        for (const json of [{}, { name: "changed by a viewer", role: "admin", email: "v@example.com" }]) {
          const reply = yield* viewer.client[route.method.toLowerCase() as "post"](path, { json })
          expect(reply.status, `${route.method} ${route.path}: ${reply.text}`).toBe(403)
          expect(reply.body).toEqual({ _tag: "Forbidden", message: viewerRefused })
        }
      }
      expect(yield* fingerprint).toEqual(before)

      // Every read answers the viewer as it answers an admin.
      for (const route of endpoints.filter((e) => e.method === "GET")) {
        const path = fill(route.path, ids)
        const asViewer = yield* viewer.client.get(path)
        const asAdmin = yield* admin.client.get(path)
        expect(asViewer.status, `GET ${route.path}: ${asViewer.text.slice(0, 200)}`).toBe(asAdmin.status)
        expect(asViewer.status, `GET ${route.path}`).not.toBe(403)
      }

      // The session says who is a viewer, and the same change is an admin's to make.
      expect((yield* viewer.client.get("/portal/api/session")).body.operator.role).toBe("viewer")
      const renamed = yield* admin.client.patch(`/portal/api/apps/${app.id}`, { json: { name: "renamed by an admin" } })
      expect(renamed.status, renamed.text).toBe(200)
      // Its own logout is the viewer's to make.
      expect((yield* viewer.client.post("/portal/api/logout")).status).toBe(204)
    }))

  it.effect("an admin creates an operator with a setup link, changes its role, disables, enables and resets it", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const { baseUrl } = yield* TestServer
      const email = `new-${crypto.randomBytes(4).toString("hex")}@example.com`
      const created = yield* admin.client.post("/portal/api/operators", { json: { email, role: "viewer" } })
      expect(created.status, created.text).toBe(201)
      expect(created.body.operator).toMatchObject({ email, role: "viewer", status: "Active", secondFactor: false })
      const token = /\/portal\/setup#([A-Za-z0-9_-]{43})$/.exec(created.body.setupUrl)?.[1]
      expect(token, created.body.setupUrl).toBeDefined()
      const id = created.body.operator.id as string
      expect((yield* admin.client.post("/portal/api/operators", { json: { email, role: "admin" } })).status).toBe(409)

      // The link sets the password once; the new viewer logs in.
      const setup = yield* portalRequest(baseUrl, "POST", "/portal/api/setup", {
        json: { token, password: operatorPassword }
      })
      expect(setup.status, setup.text).toBe(204)
      const first = yield* portalLogin(baseUrl, email, operatorPassword)
      expect(first.reply.body.operator.role).toBe("viewer")

      // Made an admin, its open session may change things at once.
      const promoted = yield* admin.client.put(`/portal/api/operators/${id}/role`, { json: { role: "admin" } })
      expect(promoted.status, promoted.text).toBe(200)
      expect(promoted.body.role).toBe("admin")
      const asPromoted = yield* portalRequest(baseUrl, "POST", "/portal/api/apps", {
        json: { name: "made by the promoted" },
        defaults: first
      })
      expect(asPromoted.status, asPromoted.text).toBe(201)

      // Disabled: its session ends and it cannot log in; enabled: it logs in with the password it had.
      const disabled = yield* admin.client.post(`/portal/api/operators/${id}/disable`)
      expect(disabled.status, disabled.text).toBe(200)
      expect(disabled.body.status).toBe("Disabled")
      expect((yield* portalRequest(baseUrl, "GET", "/portal/api/session", { defaults: first })).status).toBe(401)
      const refused = yield* portalRequest(baseUrl, "POST", "/portal/api/login", {
        json: { email, password: operatorPassword }
      })
      expect(refused.status).toBe(401)
      const enabled = yield* admin.client.post(`/portal/api/operators/${id}/enable`)
      expect(enabled.status, enabled.text).toBe(200)
      expect(enabled.body.status).toBe("Active")
      const second = yield* portalLogin(baseUrl, email, operatorPassword)

      // A reset forgets the password and ends the sessions; the new link sets another.
      const reset = yield* admin.client.post(`/portal/api/operators/${id}/reset-password`)
      expect(reset.status, reset.text).toBe(200)
      const newToken = /#([A-Za-z0-9_-]{43})$/.exec(reset.body.setupUrl)?.[1]
      expect(newToken).toBeDefined()
      expect(newToken).not.toBe(token)
      expect((yield* portalRequest(baseUrl, "GET", "/portal/api/session", { defaults: second })).status).toBe(401)
      const oldPassword = yield* portalRequest(baseUrl, "POST", "/portal/api/login", {
        json: { email, password: operatorPassword }
      })
      expect(oldPassword.status).toBe(401)
      const again = yield* portalRequest(baseUrl, "POST", "/portal/api/setup", {
        json: { token: newToken, password: "another password of mine" }
      })
      expect(again.status, again.text).toBe(204)
      yield* portalLogin(baseUrl, email, "another password of mine")

      const unknown = yield* admin.client.post(`/portal/api/operators/${crypto.randomUUID()}/enable`)
      expect(unknown.status).toBe(404)

      // Each change is audited, by the admin, with its summary.
      expect((yield* auditOf(admin.client, "operator.role", id))[0].summary).toBe(
        `email: ${email}, role: viewer → admin`
      )
      expect(yield* auditOf(admin.client, "operator.disable", id)).toHaveLength(1)
      expect(yield* auditOf(admin.client, "operator.enable", id)).toHaveLength(1)
      const resetEvent = (yield* auditOf(admin.client, "operator.password.reset", id))[0]
      expect(resetEvent.operatorEmail).toBe(admin.email)
      expect(JSON.stringify(resetEvent)).not.toContain(newToken!)
    }))
})

layer(makeTestServer(), { timeout: "120 seconds" })("the last admin", (it) => {
  it.effect("the last active admin can be neither demoted nor disabled; with a second admin it can", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const viewer = yield* loggedInAs("viewer")
      const demote = yield* admin.client.put(`/portal/api/operators/${admin.id}/role`, { json: { role: "viewer" } })
      expect(demote.status, demote.text).toBe(409)
      expect(demote.body.message).toMatch(/last active admin/)
      expect((yield* admin.client.post(`/portal/api/operators/${admin.id}/disable`)).status).toBe(409)
      // A disabled admin does not count.
      const other = yield* loggedInAs("admin")
      expect((yield* admin.client.post(`/portal/api/operators/${other.id}/disable`)).status).toBe(200)
      expect((yield* admin.client.put(`/portal/api/operators/${admin.id}/role`, { json: { role: "viewer" } })).status)
        .toBe(409)
      // With another active admin, it can step down.
      expect((yield* admin.client.post(`/portal/api/operators/${other.id}/enable`)).status).toBe(200)
      const stepDown = yield* admin.client.put(`/portal/api/operators/${admin.id}/role`, { json: { role: "viewer" } })
      expect(stepDown.status, stepDown.text).toBe(200)
      // Now a viewer, it is refused what it just did.
      const refused = yield* admin.client.post(`/portal/api/operators/${viewer.id}/disable`)
      expect(refused.status).toBe(403)
    }))
})
