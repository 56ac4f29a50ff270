/**
 * The fuzz test: bad requests generated with fast-check for every operation of the OpenAPI
 * document the server publishes (the 24 endpoints of the contract, the journal image, re-sync, and a
 * user's erasure and export), the provider webhook routes, the sandbox consent pages, scan uploads,
 * the Prometheus scrape (`/metrics`), the admin portal's JSON API (from documents of its own, as it is
 * left out of the published one; sent with a logged-in session and its CSRF token), and requests
 * malformed at the HTTP level. Each request gets: an answer, no 5xx, the JSON error body `{_tag, message}` on every
 * 4xx/5xx, a refusal where the contract certainly refuses, and no change in the data tables unless
 * it succeeded. Seeded (`FUZZ_SEED`) and bounded (`FUZZ_RUNS` cases per operation); the figures
 * (cases, 5xx, statuses) are printed and appended to `FUZZ_REPORT` when set.
 *
 * The server runs without rate limits in the test harness; a deployment's limits are not part of
 * what is fuzzed here.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import {
  AppsGroup,
  OperatorsGroup,
  SandboxGroup,
  SessionGroup,
  UsersGroup,
  WebhooksGroup
} from "@pulsebridge/portal/api"
import { createOperator, createUser, makeTestServer, portalLogin, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import fc from "fast-check"
import { Apps } from "../../src/apps/Apps.js"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { specEndpoints } from "../fixtures/Endpoints.js"
import type { Bad, FuzzCase } from "../fixtures/Fuzz.js"
import {
  badDates,
  badIds,
  badNumbers,
  badStrings,
  badTimestamps,
  changedTables,
  deepArray,
  deepObject,
  digest,
  fuzzRuns,
  oddHeaders,
  Recorder,
  samples,
  wrongTypes
} from "../fixtures/Fuzz.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import type { WireRequest } from "../fixtures/Wire.js"
import { sendBytes, sendWire } from "../fixtures/Wire.js"
import { makeJpeg, makePng } from "../journal/fixtures/Images.js"

type Schema = Record<string, any>
type Header = readonly [string, string]

interface Parameter {
  readonly name: string
  readonly in: "path" | "query"
  readonly required: boolean
  readonly schema: Schema
}

interface Operation {
  readonly method: string
  readonly path: string
  readonly label: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly body: { readonly contentType: string; readonly schema: Schema } | undefined
  /** An API key, a user token, none, or a portal session (cookie and CSRF token). */
  readonly credential: "K" | "T" | "none" | "P"
}

/** What the generated requests are built from: credentials and ids of rows that exist. */
interface World {
  readonly apiKey: string
  /** A user of the app addressed by the API-key endpoints. */
  readonly userK: { readonly id: string; readonly token: string }
  /** The user whose token the user-token endpoints are called with. */
  readonly userT: { readonly id: string; readonly token: string }
  /** The user the erasure cases address, so an erasure that succeeds leaves the others in place. */
  readonly erasable: string
  readonly connectionId: string
  readonly entryId: string
  readonly appId: string
  /** A webhook endpoint of the API key's app, and a delivery to it. */
  readonly webhookEndpointId: string
  readonly webhookDeliveryId: string
  /** A logged-in portal session, its operator, and an API key of the app made in the portal. */
  readonly portal: {
    readonly cookie: string
    readonly csrfToken: string
    readonly email: string
    readonly keyId: string
    /** The user the portal's erasure cases address, and its external id (their confirmation). */
    readonly erasable: string
    readonly erasableExternalId: string
  }
}

const portalPassword = "fuzz operator password"
/** The operator of the latest `setUp`, whose login the login cases send. */
let portalEmail = ""

/** The portal's JSON API as a document of its own: the published one leaves it out. */
const portalDocument = () =>
  OpenApi.fromApi(
    HttpApi.make("portal")
      .add(SessionGroup.annotate(OpenApi.Exclude, false))
      .add(OperatorsGroup.annotate(OpenApi.Exclude, false))
      .add(AppsGroup.annotate(OpenApi.Exclude, false))
  ) as unknown as Record<string, any>

const KiB = 1024
const MiB = 1024 * KiB

// ---------------------------------------------------------------------------------------------
// The operations, from the OpenAPI document

const deref = (document: Schema, schema: Schema): Schema => {
  let current = schema
  for (let i = 0; i < 10 && typeof current["$ref"] === "string"; i++) {
    current = document.components.schemas[(current["$ref"] as string).split("/").pop()!]
  }
  return current
}

const operationsOf = (document: Schema): Array<Operation> => {
  const operations: Array<Operation> = []
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const content = operation.requestBody?.content as Record<string, { schema: Schema }> | undefined
      const contentType = content === undefined ? undefined : Object.keys(content)[0]!
      const spec = specEndpoints.find((endpoint) => endpoint.path === path && endpoint.method === method.toUpperCase())
      operations.push({
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        parameters: ((operation.parameters ?? []) as Array<Schema>).map((parameter) => ({
          name: parameter.name,
          in: parameter.in,
          required: parameter.required === true,
          schema: deref(document, parameter.schema ?? {})
        })),
        body: contentType === undefined
          ? undefined
          : { contentType, schema: deref(document, content![contentType]!.schema) },
        credential: spec?.credential ?? (path.startsWith("/api/v1/users/{userId}") ? "T" : "K")
      })
    }
  }
  return operations
}

/** The portal's operations: login and setup need no session, every other one the portal session. */
const portalOperationsOf = (document: Schema): Array<Operation> =>
  operationsOf(document).map((operation) => ({
    ...operation,
    credential: operation.path === "/portal/api/login" || operation.path === "/portal/api/setup" ? "none" : "P"
  }))

// ---------------------------------------------------------------------------------------------
// Valid requests, which each case makes bad in one place

let unique = 0
const nextId = () => `fuzz-${++unique}-${Date.now().toString(36)}`

const validBodies: Record<string, () => Record<string, unknown>> = {
  "POST /portal/api/login": () => ({ email: portalEmail, password: portalPassword }),
  // never a valid token: the setup endpoint can only refuse
  "POST /portal/api/setup": () => ({ token: "t".repeat(43), password: portalPassword }),
  "POST /portal/api/apps": () => ({ name: "fuzz app" }),
  "PATCH /portal/api/apps/{appId}": () => ({ name: "fuzz app" }),
  "POST /portal/api/apps/{appId}/keys": () => ({ name: "fuzz", permissions: ["users:read"] }),
  "PUT /portal/api/apps/{appId}/providers/{provider}": () => ({
    clientId: "fuzz-client",
    clientSecret: "fuzz-secret",
    scopes: "read:recovery offline"
  }),
  "POST /api/v1/users": () => ({ externalUserId: nextId(), locale: "en-US", timezone: "Europe/Paris", metadata: {} }),
  "PATCH /api/v1/users/{id}": () => ({ locale: "en-US", timezone: "Europe/Paris", metadata: { plan: "a" } }),
  // Connections to port 9 are refused at once: the worker's attempts end quickly.
  "POST /api/v1/webhook-endpoints": () => ({
    url: "https://127.0.0.1:9/fuzz",
    events: ["data.updated"],
    description: "fuzz"
  }),
  "PATCH /api/v1/webhook-endpoints/{id}": () => ({
    url: "https://127.0.0.1:9/fuzz",
    events: ["data.updated", "scores.updated"],
    description: "fuzz",
    enabled: true
  }),
  "POST /api/v1/users/{userId}/connections/sessions": () => ({
    provider: "Fitbit",
    redirectUrl: "https://app.example.com/done",
    scopes: null
  }),
  "POST /api/v1/users/{userId}/journal-entries": () => ({
    entryKind: "Meal",
    consumedAtUtc: "2026-01-02T12:00:00Z",
    timezone: "Europe/Paris",
    title: "fuzz",
    notes: null,
    nutrients: { caloriesKcal: 100 }
  }),
  "POST /api/v1/users/{userId}/connections/{connectionId}/sync": () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
    return { from: day(-7), to: day(-1) }
  },
  "POST /portal/api/apps/{appId}/webhook-endpoints": () => ({
    url: "https://127.0.0.1:9/fuzz",
    events: ["data.updated"],
    description: "fuzz"
  }),
  "PATCH /portal/api/apps/{appId}/webhook-endpoints/{endpointId}": () => ({
    url: "https://127.0.0.1:9/fuzz",
    events: ["data.updated", "scores.updated"],
    description: "fuzz",
    enabled: true
  }),
  "POST /portal/api/sandbox/users/{userId}/connections": () => ({ provider: "Fitbit", account: "fuzz-account" }),
  // A knob on a path no request takes: setting it changes nothing else.
  "PUT /portal/api/sandbox/faults/{provider}": () => ({
    faults: [{ path: "/fuzz-nothing-here", kind: "serverError", method: "GET", count: 1 }]
  }),
  "PATCH /api/v1/users/{userId}/journal-entries/{entryId}": () => ({
    items: [{ name: "egg", quantity: 1, unit: "piece", nutrients: { caloriesKcal: 70 } }],
    entryKind: "Meal",
    consumedAtUtc: "2026-01-02T12:00:00Z",
    timezone: "Europe/Paris",
    title: "fuzz",
    notes: null
  })
}

const validQuery: Record<string, string> = {
  from: "2026-01-01",
  to: "2026-01-07",
  date: "2026-01-02",
  external_user_id: "nobody-by-this-name",
  provider: "Fitbit",
  state: "unknown-state",
  code: "unknown-code",
  oauth_token: "unknown-token",
  oauth_verifier: "unknown-verifier",
  limit: "10",
  cursor: "1",
  includeRaw: "true"
}

const validPathValue = (world: World, operation: Operation, name: string) => {
  switch (name) {
    case "appId":
      return world.appId
    case "keyId":
      return world.portal.keyId
    case "provider":
      return "WHOOP"
    case "id":
      return operation.path.startsWith("/api/v1/webhook-endpoints")
        ? world.webhookEndpointId
        : operation.path.endsWith("/erase")
        ? world.erasable
        : world.userK.id
    case "deliveryId":
      return world.webhookDeliveryId
    case "userId":
      return operation.path.startsWith("/portal/api/") && operation.path.endsWith("/erase")
        ? world.portal.erasable
        : world.userT.id
    case "endpointId":
      return world.webhookEndpointId
    case "connectionId":
      return world.connectionId
    case "entryId":
      return world.entryId
    case "date":
      return "2026-01-02"
    default:
      throw new Error(`no valid value for path parameter ${name} of ${operation.label}`)
  }
}

/** Operations that change state without a body: only certainly bad requests are sent to them. */
const changesStateWithoutBody = (operation: Operation) =>
  operation.method === "DELETE" ||
  /\/(rotate-token|rotate-secret|test|retry|erase|revoke|logout)$/.test(operation.path)

const validCredential = (world: World, operation: Operation): ReadonlyArray<Header> =>
  operation.credential === "none"
    ? []
    : operation.credential === "P"
    ? [["Cookie", world.portal.cookie], ["X-CSRF-Token", world.portal.csrfToken]]
    : [["Authorization", `Bearer ${operation.credential === "K" ? world.apiKey : world.userT.token}`]]

/** Bad sessions and CSRF tokens; a missing or wrong CSRF token is certainly refused on a change only. */
const portalCredentialDrafts = (world: World, operation: Operation): Array<Draft> => {
  const change = operation.method !== "GET"
  const { cookie, csrfToken } = world.portal
  // The token with its last character changed (to another one: a token that already ends in "A" keeps a "B").
  const wrongToken = `${csrfToken.slice(0, -1)}${csrfToken.endsWith("A") ? "B" : "A"}`
  const draft = (credential: ReadonlyArray<Header>, label: string, certain = true): Draft => ({
    mutation: `session: ${label}`,
    certain,
    credential
  })
  return [
    draft([], "none"),
    draft([["X-CSRF-Token", csrfToken]], "the CSRF token without the cookie"),
    draft([["Cookie", "pb_portal_session="], ["X-CSRF-Token", csrfToken]], "an empty cookie"),
    draft([["Cookie", "pb_portal_session=x"], ["X-CSRF-Token", csrfToken]], "a one-letter cookie"),
    draft(
      [["Cookie", `pb_portal_session=${"k".repeat(5_000)}`], ["X-CSRF-Token", csrfToken]],
      "a 5,000-character cookie"
    ),
    draft([["Cookie", `${cookie}x`], ["X-CSRF-Token", csrfToken]], "the valid cookie and one more character"),
    draft([["Cookie", `${cookie}%00`], ["X-CSRF-Token", csrfToken]], "the valid cookie and an encoded NUL"),
    draft([["Authorization", `Bearer ${world.apiKey}`]], "an API key instead"),
    draft([["Cookie", cookie]], "no CSRF token", change),
    draft([["Cookie", cookie], ["X-CSRF-Token", wrongToken]], "a wrong CSRF token", change),
    draft([["Cookie", cookie], ["X-CSRF-Token", ""]], "an empty CSRF token", change),
    draft([["Cookie", cookie], ["X-CSRF-Token", "x".repeat(5_000)]], "a 5,000-character CSRF token", change),
    draft(
      [["Cookie", cookie], ["X-CSRF-Token", csrfToken], ["Origin", "https://evil.example"]],
      "another origin",
      change
    )
  ]
}

// ---------------------------------------------------------------------------------------------
// Mutations

/** `encodeURIComponent` that writes a lone surrogate as the bytes of its (invalid) UTF-8 form. */
const encodeLoose = (text: string) => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(text.slice(i, i + 2))
        i++
        continue
      }
    }
    out += code >= 0xd800 && code <= 0xdfff ? "%ED%A0%80" : encodeURIComponent(text[i]!)
  }
  return out
}

/** A string value of a bad JSON value, for query parameters (a JSON string is sent unquoted). */
const asQueryText = (value: Bad) => {
  try {
    const parsed = JSON.parse(value.json)
    return typeof parsed === "string" ? parsed : value.json
  } catch {
    return value.json
  }
}

interface Field {
  readonly path: ReadonlyArray<string | number>
  readonly schema: Schema
  readonly required: boolean
}

/** Every field of a body schema, nested objects and the first element of arrays of objects included. */
const fieldsOf = (document: Schema, schema: Schema, prefix: ReadonlyArray<string | number> = []): Array<Field> => {
  const fields: Array<Field> = []
  const required = new Set<string>(schema.required ?? [])
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const field = deref(document, raw)
    const path = [...prefix, name]
    fields.push({ path, schema: field, required: required.has(name) })
    const inner = nonNull(document, field).schema
    if (inner.type === "object" && inner.properties !== undefined && Object.keys(inner.properties).length > 0) {
      fields.push(...fieldsOf(document, inner, path))
    }
    if (inner.type === "array" && inner.items !== undefined) {
      const item = deref(document, inner.items)
      if (item.type === "object") fields.push(...fieldsOf(document, item, [...path, 0]))
    }
  }
  return fields
}

/** The schema without its `null` branch, and whether `null` is allowed. */
const nonNull = (document: Schema, schema: Schema): { schema: Schema; nullable: boolean } => {
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as Array<Schema>).map((branch) => deref(document, branch))
    const nullable = branches.some((branch) => branch.type === "null")
    const rest = branches.filter((branch) => branch.type !== "null")
    const first = rest[0] ?? {}
    // `Provider`: a built-in name or a plug-in's; both strings
    return {
      schema: { ...first, strict: rest.some((branch) => branch.enum !== undefined || branch.pattern !== undefined) },
      nullable
    }
  }
  return { schema, nullable: false }
}

/** Query parameters of free text (the portal's user search), and of a count (a page size, days). */
const freeTextQueryNames = /^search$/
const countQueryNames = /^(limit|days)$/

/** Identifiers and URLs: no control characters. */
const identifierNames = /(Id|Url|_id|url)$/
/** Fields with a format of their own (a URL, a time zone, a provider name). */
const formatNames = /^(redirectUrl|url|timezone|provider|locale|entryKind)$/

/** The bad values for one field, chosen by its schema. */
const badValuesFor = (document: Schema, field: Field): Array<Bad> => {
  const { nullable, schema } = nonNull(document, field.schema)
  const name = String(field.path[field.path.length - 1])
  if (schema.format === "date-time") return badTimestamps
  switch (schema.type) {
    case "boolean":
      return [
        { json: "1", label: "a number", certain: true },
        { json: "\"true\"", label: "the string \"true\"", certain: true },
        { json: "[true]", label: "an array", certain: true },
        { json: "{}", label: "an empty object", certain: true },
        ...(nullable ? [] : [{ json: "null", label: "null", certain: true }])
      ]
    case "number":
    case "integer":
      return badNumbers(schema.minimum === 0, nullable)
    case "array": {
      const item = schema.items === undefined ? {} : deref(document, schema.items)
      return [
        ...wrongTypes("array", nullable),
        { json: "[{}]", label: "an item without its required fields", certain: item.type === "object" },
        ...(typeof schema.maxItems === "number"
          ? [{
            json: JSON.stringify(
              Array.from({ length: schema.maxItems + 1 }, () => ({ name: "egg", quantity: 1, unit: "piece" }))
            ),
            label: `${schema.maxItems + 1} items`,
            certain: true
          }]
          : []),
        { json: `[${Array.from({ length: 10_000 }, () => "{}").join(",")}]`, label: "10,000 items", certain: true }
      ]
    }
    case "object":
      return [
        ...wrongTypes("object", nullable),
        {
          json: JSON.stringify({ big: "m".repeat(17 * KiB) }),
          label: "over 16 KiB",
          certain: schema.properties === undefined || Object.keys(schema.properties).length === 0
        },
        { json: `{"a":${deepObject(10_000)}}`, label: "10,000 levels inside", certain: true },
        { json: `{"a":${deepArray(10_000)}}`, label: "10,000 nested arrays inside", certain: true },
        {
          json: "{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"x\":1}}}",
          label: "prototype keys",
          certain: false
        },
        { json: "{\"k\\u0000\":1}", label: "a NUL in a key", certain: false }
      ]
    default: {
      const format = schema.strict === true || schema.enum !== undefined || schema.pattern !== undefined ||
        formatNames.test(name)
      const values = badStrings({
        minLength: schema.minLength ?? 0,
        maxLength: schema.maxLength ?? (name === "redirectUrl" || name === "url" ? 2_048 : undefined),
        noControls: identifierNames.test(name),
        format,
        nullable
      })
      if (name === "redirectUrl" || name === "url") {
        const long = "https://app.example.com/" + "a".repeat(2_049 - 24)
        values.push(
          { json: JSON.stringify(long), label: "a 2,049-character URL", certain: true },
          {
            json: JSON.stringify("https://app.example.com/" + "a".repeat(100 * KiB)),
            label: "a 100 KB URL",
            certain: true
          },
          {
            json: JSON.stringify("https://app.example.com/\r\nSet-Cookie: a=1"),
            label: "CR/LF in the URL",
            certain: true
          },
          { json: JSON.stringify("javascript:alert(1)"), label: "a javascript: URL", certain: true },
          { json: JSON.stringify("http://evil.example/"), label: "plain http off localhost", certain: true },
          { json: JSON.stringify("/relative"), label: "a relative URL", certain: true },
          { json: JSON.stringify("https://"), label: "no host", certain: true }
        )
      }
      return values
    }
  }
}

/** Sets `path` in a copy of `body` to a placeholder and returns the JSON text with `json` in its place. */
const withField = (body: Record<string, unknown>, path: ReadonlyArray<string | number>, json: string | undefined) => {
  const copy = structuredClone(body) as any
  let at = copy
  for (const key of path.slice(0, -1)) {
    if (at[key] === undefined || at[key] === null) at[key] = typeof key === "number" ? [] : {}
    at = at[key]
  }
  const last = path[path.length - 1]!
  const placeholder = "\u0001fuzz-placeholder\u0001"
  if (json === undefined) {
    if (Array.isArray(at)) at.splice(Number(last), 1)
    else delete at[last]
    return JSON.stringify(copy)
  }
  at[last] = placeholder
  return JSON.stringify(copy).replace(JSON.stringify(placeholder), () => json)
}

interface Draft {
  readonly mutation: string
  readonly certain: boolean
  readonly pathValues?: Readonly<Record<string, string>>
  readonly query?: (valid: ReadonlyArray<Header>) => string
  readonly credential?: ReadonlyArray<Header>
  readonly contentType?: string | null
  readonly body?: string | Uint8Array
}

const credentialDrafts = (world: World, operation: Operation): Array<Draft> => {
  const auth = (value: string | undefined, label: string, certain = true): Draft => ({
    mutation: `credential: ${label}`,
    certain,
    credential: value === undefined ? [] : [["Authorization", value]]
  })
  const valid = operation.credential === "K" ? world.apiKey : world.userT.token
  return [
    auth(undefined, "none"),
    auth("Bearer", "the scheme alone"),
    auth("Bearer ", "an empty bearer"),
    auth("Bearer x", "a one-letter token"),
    auth(`Bearer ${"k".repeat(5_000)}`, "a 5,000-character token"),
    auth(`Bearer pb_ut_${"A".repeat(43)}`, "a well-formed unknown user token"),
    auth(`Bearer pb_live_${"A".repeat(43)}`, "a well-formed unknown API key"),
    auth("Basic dXNlcjpwYXNz", "Basic"),
    auth(`Token ${valid}`, "an unknown scheme"),
    auth(`Bearer ${valid}x`, "the valid credential and one more character"),
    auth(`Bearer ${valid.slice(0, -1)}`, "the valid credential less its last character"),
    auth(`Bearer ${valid}%00`, "the valid credential and an encoded NUL"),
    auth(`bearer ${valid}`, "the scheme in lower case", false),
    auth(`Bearer  ${valid}`, "two spaces", false),
    ...(operation.credential === "K"
      ? [auth(`Bearer ${world.userT.token}`, "a user token on an API-key endpoint")]
      : []),
    ...(operation.credential === "T"
      ? [auth(`Bearer ${world.apiKey}`, "an API key on a user-token endpoint")]
      : []),
    ...(operation.credential === "T" && operation.path.includes("{userId}")
      ? [auth(`Bearer ${world.userK.token}`, "another user's token")]
      : [])
  ]
}

const contentTypeDrafts: ReadonlyArray<{ readonly value: string | null; readonly certain: boolean }> = [
  { value: null, certain: false },
  { value: "text/plain", certain: true },
  { value: "application/x-www-form-urlencoded", certain: true },
  { value: "application/xml", certain: true },
  { value: "multipart/form-data; boundary=", certain: true },
  { value: "multipart/form-data", certain: true },
  { value: "application/jsonp", certain: true },
  { value: "", certain: false },
  { value: "application/json; charset=utf-16", certain: false },
  { value: "application/json;;;", certain: false },
  { value: "APPLICATION/JSON", certain: false },
  { value: "application/json, text/plain", certain: false },
  { value: `application/json; ${"p".repeat(5_000)}=1`, certain: false }
]

const wholeBodies = (
  requiresFields: boolean,
  optional = false
): ReadonlyArray<Omit<Draft, "mutation"> & { readonly label: string }> => [
  // An optional body may be left empty.
  { label: "empty", body: "", certain: !optional },
  { label: "malformed JSON", body: "{nope", certain: true },
  { label: "a trailing comma", body: "{\"a\":1,}", certain: true },
  { label: "an array", body: "[]", certain: true },
  { label: "null", body: "null", certain: true },
  { label: "a number", body: "5", certain: true },
  { label: "a string", body: "\"s\"", certain: true },
  { label: "10,000 nested arrays", body: deepArray(10_000), certain: true },
  { label: "10,000 nested objects", body: deepObject(10_000), certain: requiresFields },
  { label: "a raw NUL", body: "\u0000", certain: true },
  { label: "a raw control character in a string", body: "{\"a\":\"\u0001\"}", certain: requiresFields },
  {
    label: "invalid UTF-8",
    body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    certain: requiresFields
  },
  { label: "a UTF-16 body", body: new Uint8Array(Buffer.from("{\"a\":1}", "utf16le")), certain: true },
  { label: "a byte order mark", body: "\ufeff{}", certain: requiresFields }
]

/** The arbitrary of one bad request for `operation`. */
const draftsOf = (document: Schema, world: World, operation: Operation): fc.Arbitrary<Draft> => {
  const options: Array<fc.Arbitrary<Draft>> = []
  const bodyless = changesStateWithoutBody(operation)
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path")
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query")

  if (pathParameters.length > 0) {
    options.push(
      fc.constantFrom(...pathParameters).chain((parameter) => {
        const valid = validPathValue(world, operation, parameter.name)
        const values = parameter.name === "date" ? badDates : badIds(valid)
        return fc.constantFrom(...values.filter((value) => value.certain || !bodyless)).map((value): Draft => ({
          mutation: `path ${parameter.name}: ${value.label}`,
          certain: value.certain,
          pathValues: { [parameter.name]: value.text === "" ? "" : value.text }
        }))
      })
    )
  }
  if (operation.credential === "P") options.push(fc.constantFrom(...portalCredentialDrafts(world, operation)))
  else if (operation.credential !== "none") options.push(fc.constantFrom(...credentialDrafts(world, operation)))
  if (!bodyless) {
    if (queryParameters.length > 0) {
      options.push(
        fc.constantFrom(...queryParameters).chain((parameter) => {
          const isDate = ["from", "to", "date"].includes(parameter.name)
          const values: Array<{ text: string | undefined; label: string; certain: boolean; raw?: boolean }> = [
            { text: undefined, label: "missing", certain: parameter.required },
            ...(isDate
              ? badDates.map((value) => ({ ...value, raw: true }))
              : badStrings({
                minLength: 1,
                maxLength: 255,
                noControls: true,
                format: formatNames.test(parameter.name),
                nullable: false
              })
                .map((value) => ({ text: asQueryText(value), label: value.label, certain: value.certain }))),
            { text: "%", label: "a lone percent", certain: isDate || operation.credential === "none", raw: true },
            { text: "%FF%FE", label: "invalid UTF-8", certain: isDate || operation.credential === "none", raw: true }
          ]
          // A free-text search takes any text but an over-long one; a count takes any small number.
          const free = freeTextQueryNames.test(parameter.name)
          const count = countQueryNames.test(parameter.name)
          const uncertain = (value: { text: string | undefined; label: string }) =>
            (free && !value.label.startsWith("one over the maximum") && !value.label.startsWith("100,000")) ||
            (count && value.text !== undefined && /^\d{1,3}$/.test(value.text))
          return fc.constantFrom(...values).map((value): Draft => ({
            mutation: `query ${parameter.name}: ${value.label}`,
            certain: (value.certain && !uncertain(value)) || operation.credential === "none",
            query: (valid) => {
              const rest = valid.filter(([name]) => name !== parameter.name)
              const pairs = rest.map(([name, v]) => `${name}=${encodeLoose(v)}`)
              if (value.text !== undefined) {
                pairs.push(`${parameter.name}=${value.raw === true ? value.text : encodeLoose(value.text)}`)
              }
              return pairs.join("&")
            }
          }))
        })
      )
    }
    options.push(
      fc.constantFrom(
        { label: "a duplicated parameter", extra: "from=2026-01-01&from=2026-01-02&date=x&date=y" },
        { label: "array syntax", extra: "from[]=2026-01-01&to[0]=2026-01-02" },
        { label: "prototype keys", extra: "__proto__=1&constructor[prototype][x]=1" },
        { label: "bare ampersands and equals", extra: "&&&=&=x&" },
        { label: "an invalid escape in a name", extra: "%FF=%FE&%=%" },
        { label: "a 10,000-character value", extra: `q=${"v".repeat(10_000)}` },
        { label: "1,000 parameters", extra: Array.from({ length: 1_000 }, (_, i) => `p${i}=${i}`).join("&") }
      ).map(({ extra, label }): Draft => ({
        mutation: `query: ${label}`,
        // (the OAuth callbacks refuse what they cannot read; the portal's login and setup ignore a query)
        certain: operation.credential === "none" && !extra.includes("state=") && !operation.path.startsWith("/portal/"),
        query: (valid) => [...valid.map(([name, v]) => `${name}=${encodeLoose(v)}`), extra].join("&")
      }))
    )
  }
  if (operation.body !== undefined && operation.body.contentType === "application/json") {
    // A body that may be null (the re-sync range) is fuzzed through its object branch.
    const bodySchema = nonNull(document, deref(document, operation.body.schema))
    const fields = fieldsOf(document, bodySchema.schema)
    const requiresFields = (bodySchema.schema.required ?? []).length > 0
    const base = validBodies[operation.label]!
    options.push(
      fc.constantFrom(...fields).chain((field) =>
        fc.constantFrom<Bad | undefined>(undefined, ...badValuesFor(document, field)).map((value): Draft => ({
          mutation: `body ${field.path.join(".")}: ${value?.label ?? "missing"}`,
          certain: value === undefined ? field.required : value.certain,
          body: withField(base(), field.path, value?.json)
        }))
      ),
      fc.constantFrom(...wholeBodies(requiresFields, bodySchema.nullable)).map((value): Draft => ({
        mutation: `body: ${value.label}`,
        certain: value.certain,
        ...(value.body === undefined ? {} : { body: value.body })
      })),
      fc.constantFrom(...contentTypeDrafts).map((value): Draft => ({
        mutation: `content type: ${JSON.stringify(value.value)}`,
        certain: value.certain,
        contentType: value.value,
        body: JSON.stringify(base())
      })),
      fc.constant<Draft>({
        mutation: "body: a duplicated key, the second bad",
        certain: true,
        body: JSON.stringify(base()).replace(/}$/, `,${JSON.stringify(Object.keys(base())[0])}:[${deepArray(50)}]}`)
      })
    )
  }
  return fc.oneof(...options)
}

/** The request a draft stands for: the valid request with the draft's changes. */
const requestOf = (world: World, operation: Operation, draft: Draft, extra: ReadonlyArray<Header>): WireRequest => {
  let target = operation.path
  for (const parameter of operation.parameters.filter((p) => p.in === "path")) {
    const value = draft.pathValues?.[parameter.name] ?? validPathValue(world, operation, parameter.name)
    target = target.replace(`{${parameter.name}}`, value)
  }
  const validQueryPairs: Array<Header> = operation.parameters
    .filter((parameter) => parameter.in === "query" && (parameter.required || parameter.name === "provider"))
    .map((parameter) => [parameter.name, validQuery[parameter.name] ?? "x"])
  const query = draft.query === undefined
    ? validQueryPairs.map(([name, value]) => `${name}=${encodeLoose(value)}`).join("&")
    : draft.query(validQueryPairs)
  if (query !== "") target += `?${query}`
  const headers: Array<Header> = [...(draft.credential ?? validCredential(world, operation))]
  let body = draft.body
  if (
    body === undefined && operation.body?.contentType === "application/json" &&
    draft.mutation.startsWith("body:") === false
  ) {
    body = JSON.stringify(validBodies[operation.label]!())
  }
  if (body !== undefined && operation.body !== undefined) {
    const contentType = draft.contentType === undefined ? "application/json" : draft.contentType
    if (contentType !== null) headers.push(["Content-Type", contentType])
  }
  return { method: operation.method, target, headers: [...headers, ...extra], ...(body === undefined ? {} : { body }) }
}

// ---------------------------------------------------------------------------------------------
// Running cases

const timedSend = (recorder: Recorder, fuzzCase: FuzzCase) =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.tap(sendWire(fuzzCase.request), () =>
      Effect.sync(() => recorder.timed(fuzzCase, performance.now() - start)))
  })

const isSafe = (method: string) => method === "GET" || method === "HEAD"

/**
 * Sends each case and checks its reply. A case that may write (any method but GET) is checked
 * against a digest of the data tables taken just before and after it; the GET cases, which may
 * never write, are sent first, four at a time, and checked against one digest around all of them,
 * so the check stays cheap.
 */
const runCases = (recorder: Recorder, cases: Iterable<FuzzCase>) =>
  Effect.gen(function*() {
    const all = [...cases]
    const safe = all.filter((fuzzCase) => isSafe(fuzzCase.request.method))
    if (safe.length > 0) {
      const start = yield* digest
      // Nothing of theirs is told apart by the digest, so they go a few at a time.
      const replies = yield* Effect.forEach(safe, (fuzzCase) => timedSend(recorder, fuzzCase), { concurrency: 4 })
      safe.forEach((fuzzCase, i) => recorder.check(fuzzCase, replies[i]!, []))
      const changed = changedTables(start, yield* digest)
      if (changed.length > 0) {
        recorder.failures.push({
          cause: `state changed by GET requests (${changed.join(", ")})`,
          operation: safe[0]!.operation,
          mutation: `one of ${safe.length} GET cases`,
          reproduction: safe.slice(0, 3).map((c) => `${c.request.method} ${c.request.target.slice(0, 200)}`).join(" | ")
        })
      }
    }
    let before = yield* digest
    for (const fuzzCase of all.filter((c) => !isSafe(c.request.method))) {
      const reply = yield* timedSend(recorder, fuzzCase)
      // An accepted erasure goes on in the background: its changes belong to it, not to the next case.
      if (fuzzCase.operation.endsWith("/erase") && reply.status === 202) yield* erasuresFinished
      const after = yield* digest
      recorder.check(fuzzCase, reply, changedTables(before, after))
      before = after
    }
  })

/** Each operation's generated cases, then, for an operation with a body, one body over 1 MiB. */
const fuzzOperations = (recorder: Recorder, document: Schema, world: World, operations: ReadonlyArray<Operation>) =>
  Effect.forEach(operations, (operation) =>
    Effect.gen(function*() {
      const drafts = samples(operation.label, fc.tuple(draftsOf(document, world, operation), oddHeaders), fuzzRuns)
      yield* runCases(
        recorder,
        drafts.map(([draft, extra]): FuzzCase => ({
          operation: operation.label,
          mutation: draft.mutation,
          mustReject: draft.certain,
          request: requestOf(world, operation, draft, extra)
        }))
      )
      if (operation.body !== undefined) {
        yield* runCases(recorder, [{
          operation: operation.label,
          mutation: "body: over 1 MiB",
          mustReject: true,
          request: requestOf(world, operation, {
            mutation: "body: over 1 MiB",
            certain: true,
            body: `{"pad":"${"p".repeat(MiB)}"}`
          }, [])
        }])
      }
    }), { discard: true })

const erasuresFinished = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  eventually(
    sql<{ count: number }>`select count(*)::int as count from erased_users where completed_at is null`,
    (rows) => rows[0]!.count === 0,
    "the accepted erasure to finish",
    { within: "60 seconds" }
  ))

const finish = (recorder: Recorder) =>
  Effect.sync(() => {
    const text = recorder.report()
    expect(recorder.cases).toBeGreaterThan(0)
    expect(recorder.failures.length, text).toBe(0)
  })

const setUp = Effect.gen(function*() {
  const target = yield* createUser("fuzz-target")
  const holder = yield* send("POST", "/api/v1/users", {
    bearer: target.apiKey,
    json: { externalUserId: "fuzz-holder" }
  })
  expect(holder.status, preview(holder)).toBe(201)
  const created = json(holder) as { id: string; token: string }
  const erasable = yield* send("POST", "/api/v1/users", {
    bearer: target.apiKey,
    json: { externalUserId: "fuzz-erasable" }
  })
  expect(erasable.status, preview(erasable)).toBe(201)
  const { connectionId } = yield* connect(created.id, created.token, "Fitbit", simulatedUser("fuzz"))
  const entry = yield* send("POST", `/api/v1/users/${created.id}/journal-entries`, {
    bearer: created.token,
    json: { entryKind: "Meal", consumedAtUtc: "2026-01-02T12:00:00Z", title: "fuzz entry" }
  })
  expect(entry.status, preview(entry)).toBe(201)
  const endpoint = yield* send("POST", "/api/v1/webhook-endpoints", {
    bearer: target.apiKey,
    json: { url: "https://127.0.0.1:9/fuzz" }
  })
  expect(endpoint.status, preview(endpoint)).toBe(201)
  const webhookEndpointId = (json(endpoint) as { id: string }).id
  const tested = yield* send("POST", `/api/v1/webhook-endpoints/${webhookEndpointId}/test`, { bearer: target.apiKey })
  expect(tested.status, preview(tested)).toBe(202)
  const deliveries = yield* send("GET", `/api/v1/webhook-endpoints/${webhookEndpointId}/deliveries`, {
    bearer: target.apiKey
  })
  // The portal: an operator of its own for each set-up, logged in, and a key of the app to revoke.
  yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from login_failures`)
  portalEmail = `${nextId()}@example.com`
  yield* createOperator(portalEmail, portalPassword)
  const login = yield* portalLogin((yield* TestServer).baseUrl, portalEmail, portalPassword)
  const portalKey = yield* Effect.flatMap(Apps, (apps) => apps.createApiKey(target.app.id, ["users:read"], "fuzz"))
  // A user of its own for the portal's erasure, confirmed by its external id.
  const erasableExternalId = nextId()
  const portalErasable = yield* send("POST", "/api/v1/users", {
    bearer: target.apiKey,
    json: { externalUserId: erasableExternalId }
  })
  expect(portalErasable.status, preview(portalErasable)).toBe(201)
  validBodies["POST /portal/api/sandbox/test-users"] = () => ({ appId: target.app.id, externalUserId: nextId() })
  validBodies["POST /portal/api/users/{userId}/erase"] = () => ({ confirmExternalUserId: erasableExternalId })
  const world: World = {
    portal: {
      cookie: login.cookie,
      csrfToken: login.csrfToken,
      email: portalEmail,
      keyId: portalKey.id,
      erasable: (json(portalErasable) as { id: string }).id,
      erasableExternalId
    },
    apiKey: target.apiKey,
    userK: { id: target.user.id, token: target.token },
    userT: { id: created.id, token: created.token },
    erasable: (json(erasable) as { id: string }).id,
    connectionId,
    entryId: (json(entry) as { id: string }).id,
    appId: target.app.id,
    webhookEndpointId,
    webhookDeliveryId: (json(deliveries) as { data: Array<{ id: string }> }).data[0]!.id
  }
  const openapi = yield* send("GET", "/openapi.json")
  expect(openapi.status).toBe(200)
  return { world, document: json(openapi) as Schema }
})

/** The portal's users, webhook endpoints and sandbox groups, as a document of their own too. */
const portalDataDocument = () =>
  OpenApi.fromApi(
    HttpApi.make("portal")
      .add(UsersGroup.annotate(OpenApi.Exclude, false))
      .add(WebhooksGroup.annotate(OpenApi.Exclude, false))
      .add(SandboxGroup.annotate(OpenApi.Exclude, false))
  ) as unknown as Schema

// ---------------------------------------------------------------------------------------------
// Multipart scans

const boundary = "fuzzBoundary7MA4YWxkTrZu0gW"

interface Part {
  readonly name: string
  readonly value: string | Uint8Array
  readonly filename?: string
  readonly type?: string
  readonly rawHeaders?: string
}

const multipart = (parts: ReadonlyArray<Part>, close = true, mark = boundary): Uint8Array => {
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    const disposition = part.rawHeaders ??
      `Content-Disposition: form-data; name="${part.name}"${
        part.filename === undefined ? "" : `; filename="${part.filename}"`
      }${part.type === undefined ? "" : `\r\nContent-Type: ${part.type}`}`
    chunks.push(Buffer.from(`--${mark}\r\n${disposition}\r\n\r\n`, "utf8"))
    chunks.push(typeof part.value === "string" ? Buffer.from(part.value, "utf8") : Buffer.from(part.value))
    chunks.push(Buffer.from("\r\n"))
  }
  if (close) chunks.push(Buffer.from(`--${mark}--\r\n`))
  return new Uint8Array(Buffer.concat(chunks))
}

const png = makePng(8, 8, 7)
const imagePart = (value: Uint8Array = png, type = "image/png", filename = "meal.png"): Part => ({
  name: "image",
  value,
  filename,
  type
})
const validFields: ReadonlyArray<Part> = [
  { name: "entryKind", value: "Meal" },
  { name: "consumedAtUtc", value: "2026-01-02T12:00:00Z" },
  { name: "timezone", value: "Europe/Paris" },
  { name: "notes", value: "2 eggs" }
]

interface ScanDraft {
  readonly mutation: string
  readonly certain: boolean
  readonly body: Uint8Array
  readonly contentType?: string | null
  readonly credential?: ReadonlyArray<Header>
}

const scanDrafts = (world: World): fc.Arbitrary<ScanDraft> => {
  const valid = () => multipart([imagePart(), ...validFields])
  const garbage = (seed: number, length: number) => {
    const bytes = new Uint8Array(length)
    let x = seed || 1
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) | 0
      bytes[i] = (x >>> 16) & 0xff
    }
    return bytes
  }
  const images: ReadonlyArray<readonly [string, Uint8Array, string, boolean]> = [
    ["a PNG signature then garbage", new Uint8Array([...png.subarray(0, 8), ...garbage(1, 400)]), "image/png", true],
    ["a PNG header then garbage", new Uint8Array([...png.subarray(0, 33), ...garbage(2, 400)]), "image/png", true],
    ["a truncated PNG", png.subarray(0, Math.floor(png.length / 2)), "image/png", true],
    ["a JPEG start then garbage", new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...garbage(3, 400)]), "image/jpeg", true],
    ["a truncated JPEG", makeJpeg(8, 8).subarray(0, 20), "image/jpeg", true],
    [
      "a RIFF WEBP header then garbage",
      new Uint8Array([...Buffer.from("RIFF\u0000\u0001\u0000\u0000WEBPVP8 "), ...garbage(4, 200)]),
      "image/webp",
      true
    ],
    ["random bytes", garbage(5, 1_000), "image/png", true],
    ["an empty file", new Uint8Array(), "image/png", true],
    [
      "a GIF",
      new Uint8Array(Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64")),
      "image/gif",
      true
    ],
    [
      "an SVG with a script",
      new Uint8Array(Buffer.from("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>")),
      "image/svg+xml",
      true
    ],
    ["text claiming to be a PNG", new Uint8Array(Buffer.from("hello")), "image/png", true],
    ["a PNG claiming to be a JPEG", png, "image/jpeg", false],
    ["a PNG as text/plain", png, "text/plain", false],
    ["a PNG of 0 x 0 pixels", makePng(0, 0), "image/png", true],
    [
      "a PNG header claiming 100,000 x 100,000 pixels",
      (() => {
        const bytes = Buffer.from(makePng(1, 1))
        bytes.writeUInt32BE(100_000, 16)
        bytes.writeUInt32BE(100_000, 20)
        return new Uint8Array(bytes)
      })(),
      "image/png",
      true
    ]
  ]
  const fieldValues: ReadonlyArray<readonly [string, string, boolean]> = [
    ...badTimestamps.filter((value) => value.json.startsWith("\"")).map((value) =>
      ["consumedAtUtc", JSON.parse(value.json) as string, value.certain] as const
    ),
    ["entryKind", "Breakfast", true],
    ["entryKind", "", true],
    ["entryKind", "meal", true],
    ["timezone", "Mars/Olympus", true],
    ["timezone", "Europe/Paris\u0000", true],
    ["notes", "n".repeat(2_001), true],
    ["notes", "a\u0000b", true],
    ["notes", "x".repeat(100_000), true]
  ]
  return fc.oneof(
    fc.constantFrom(...images).map(([label, bytes, type, certain]): ScanDraft => ({
      mutation: `image: ${label}`,
      certain,
      body: multipart([imagePart(bytes, type), ...validFields])
    })),
    fc.constantFrom(...fieldValues).map(([name, value, certain]): ScanDraft => ({
      mutation: `field ${name}: ${value.length > 40 ? `${value.length} characters` : JSON.stringify(value)}`,
      certain,
      body: multipart([imagePart(), ...validFields.filter((part) => part.name !== name), { name, value }])
    })),
    fc.constantFrom<ScanDraft>(
      // (a truncated body is answered only after about 2 s: two cases, not a whole branch)
      { mutation: "a body truncated in the part headers", certain: true, body: valid().subarray(0, 60) },
      { mutation: "a body truncated inside the image", certain: true, body: valid().subarray(0, 200) },
      { mutation: "no closing boundary", certain: true, body: multipart([imagePart(), ...validFields], false) },
      { mutation: "no image", certain: true, body: multipart(validFields) },
      { mutation: "two images", certain: true, body: multipart([imagePart(), imagePart(), ...validFields]) },
      {
        mutation: "the image as a plain field",
        certain: true,
        body: multipart([{ name: "image", value: "abc" }, ...validFields])
      },
      { mutation: "an empty body", certain: true, body: new Uint8Array() },
      {
        mutation: "a JSON body",
        certain: true,
        body: new Uint8Array(Buffer.from("{\"image\":\"x\"}")),
        contentType: "application/json"
      },
      { mutation: "the raw image", certain: true, body: png, contentType: "image/png" },
      {
        mutation: "multipart with an empty boundary",
        certain: true,
        body: valid(),
        contentType: "multipart/form-data; boundary="
      },
      { mutation: "multipart without a boundary", certain: true, body: valid(), contentType: "multipart/form-data" },
      {
        mutation: "another boundary",
        certain: true,
        body: valid(),
        contentType: "multipart/form-data; boundary=other"
      },
      {
        mutation: "a 200-character boundary",
        certain: false,
        body: multipart([imagePart(), ...validFields], true, "b".repeat(200)),
        contentType: `multipart/form-data; boundary=${"b".repeat(200)}`
      },
      {
        mutation: "multipart/mixed",
        certain: true,
        body: valid(),
        contentType: `multipart/mixed; boundary=${boundary}`
      },
      { mutation: "text/plain", certain: true, body: valid(), contentType: "text/plain" },
      { mutation: "no content type", certain: true, body: valid(), contentType: null },
      {
        mutation: "a filename with CR/LF and traversal",
        certain: false,
        body: multipart([imagePart(png, "image/png", "../../etc/passwd\r\nX: y"), ...validFields])
      },
      {
        mutation: "a part without a name",
        certain: true,
        body: multipart([{
          name: "",
          value: png,
          rawHeaders: "Content-Disposition: form-data; filename=\"a.png\"\r\nContent-Type: image/png"
        }, ...validFields])
      },
      {
        mutation: "a part with 10 KiB of headers",
        certain: false,
        body: multipart([imagePart(), {
          name: "notes",
          value: "x",
          rawHeaders: `Content-Disposition: form-data; name="notes"\r\nX-Pad: ${"p".repeat(10 * KiB)}`
        }])
      },
      {
        mutation: "1,000 unknown fields",
        certain: false,
        body: multipart([
          imagePart(),
          ...validFields,
          ...Array.from({ length: 1_000 }, (_, i) => ({ name: `f${i}`, value: "v" }))
        ])
      },
      { mutation: "no credential", certain: true, body: valid(), credential: [] },
      {
        mutation: "no credential and no multipart type",
        certain: true,
        body: new Uint8Array(Buffer.from("x")),
        credential: [],
        contentType: "text/plain"
      },
      {
        mutation: "an API key",
        certain: true,
        body: valid(),
        credential: [["Authorization", `Bearer ${world.apiKey}`]]
      },
      {
        mutation: "another user's token",
        certain: true,
        body: valid(),
        credential: [["Authorization", `Bearer ${world.userK.token}`]]
      }
    )
  )
}

// ---------------------------------------------------------------------------------------------
// Webhooks and consent pages

const webhookCases = (world: World): fc.Arbitrary<FuzzCase> => {
  const slugs = ["fitbit", "garmin", "whoop", "dexcom"]
  const badSlugs = ["unknown", "FITBIT", "%FF", "%00", "x".repeat(5_000), "..", "%2e%2e"]
  const appIds = [{ text: world.appId, label: "the app's id", certain: false }, ...badIds(world.appId)]
  const bodies: ReadonlyArray<readonly [string, string | Uint8Array, string | undefined]> = [
    ["nothing", "", undefined],
    ["malformed JSON", "{nope", "application/json"],
    ["an array of garbage", "[1,{},null,\"x\"]", "application/json"],
    [
      "a Google Health-like notification",
      "{\"data\":{\"healthUserId\":\"\\u0000\",\"dataType\":\"steps\",\"intervals\":[{\"civilIso8601TimeInterval\":{\"startTime\":\"2026-02-30T00:00:00\",\"endTime\":\"x\"}}]}}",
      "application/json"
    ],
    [
      "a WHOOP-like event",
      "{\"user_id\":-1,\"id\":\"\\ud800\",\"type\":\"recovery.updated\",\"trace_id\":\"x\"}",
      "application/json"
    ],
    [
      "a Garmin-like push",
      "{\"dailies\":[{\"userId\":\"x\",\"userAccessToken\":\"\\u0000\",\"callbackURL\":\"javascript:1\"}]}",
      "application/json"
    ],
    ["10,000 nested arrays", deepArray(10_000), "application/json"],
    ["10,000 nested objects", deepObject(10_000), "application/json"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "application/json"],
    ["a form", "a=1&b=%FF", "application/x-www-form-urlencoded"],
    ["multipart with an empty boundary", "--\r\n", "multipart/form-data; boundary="],
    ["over 1 MiB", `[${"1,".repeat(MiB / 2 + 1)}1]`, "application/json"]
  ]
  const headers: ReadonlyArray<ReadonlyArray<Header>> = [
    [],
    [["X-HEALTHAPI-SIGNATURE", "not-base64!"]],
    [["X-WHOOP-Signature", "x".repeat(5_000)], ["X-WHOOP-Signature-Timestamp", "-1"]],
    [["X-WHOOP-Signature-Timestamp", "99999999999999999999"]],
    [["Authorization", "Bearer x"]]
  ]
  const queries = ["", "?verify=x", "?verify=%FF", "?verify=" + "v".repeat(5_000), "?__proto__=1", "?%=%"]
  return fc.record({
    method: fc.constantFrom("GET", "POST"),
    slug: fc.constantFrom(...slugs, ...badSlugs),
    appId: fc.constantFrom(...appIds),
    body: fc.constantFrom(...bodies),
    headers: fc.constantFrom(...headers),
    query: fc.constantFrom(...queries),
    extra: oddHeaders
  }).map(({ appId, body, extra, headers, method, query, slug }): FuzzCase => {
    const [bodyLabel, bodyValue, contentType] = body
    return {
      operation: `${method} /webhooks/:slug/:appId`,
      mutation: `slug ${slug.length > 20 ? `${slug.length} chars` : slug}, appId ${appId.label}, ${
        method === "POST" ? `body ${bodyLabel}, ` : ""
      }query ${query.slice(0, 20)}, headers ${headers.map(([name]) => name).join(",")}`,
      mustReject: !slugs.includes(slug) || appId.certain,
      request: {
        method,
        target: `/webhooks/${slug}/${appId.text}${query}`,
        headers: [
          ...headers,
          ...(method === "POST" && contentType !== undefined ? [["Content-Type", contentType] as const] : []),
          ...extra
        ],
        ...(method === "POST" ? { body: bodyValue } : {})
      }
    }
  })
}

const consentCases: fc.Arbitrary<FuzzCase> = fc.record({
  page: fc.constantFrom(
    "/sandbox/fitbit/o/oauth2/v2/auth",
    "/sandbox/whoop/oauth/oauth2/auth",
    "/sandbox/dexcom/v2/oauth2/login",
    "/sandbox/garmin/oauthConfirm"
  ),
  method: fc.constantFrom("GET", "POST"),
  query: fc.constantFrom(
    "",
    "?client_id=unknown&redirect_uri=javascript:alert(1)&response_type=code&state=x",
    "?client_id=%FF&redirect_uri=%00&state=%ED%A0%80",
    `?client_id=${"c".repeat(5_000)}&redirect_uri=https://a/${"r".repeat(2_049)}`,
    "?redirect_uri=https://evil.example/%0D%0ASet-Cookie:x=1&response_type=token",
    "?oauth_token=%00&oauth_callback=javascript:1",
    "?scope=%FF&code_challenge=x&code_challenge_method=plain",
    "?__proto__[x]=1&constructor=1"
  ),
  body: fc.constantFrom(
    "",
    "decision=approve&user=%00",
    "decision=maybe&user=x",
    `decision=approve&user=${"u".repeat(5_000)}`,
    "%FF=%FE&&&",
    "{\"decision\":\"approve\"}"
  ),
  extra: oddHeaders
}).map(({ body, extra, method, page, query }): FuzzCase => ({
  operation: `${method} ${page}`,
  mutation: `query ${query.slice(0, 40)}${method === "POST" ? `, body ${body.slice(0, 40)}` : ""}`,
  mustReject: false,
  // pages a browser shows: their errors are HTML pages
  htmlErrors: true,
  request: {
    method,
    target: `${page}${query}`,
    headers: [...(method === "POST" ? [["Content-Type", "application/x-www-form-urlencoded"] as const] : []), ...extra],
    ...(method === "POST" ? { body } : {})
  }
}))

// ---------------------------------------------------------------------------------------------
// Malformed HTTP

const wireCases = (world: World): ReadonlyArray<FuzzCase & { readonly bytes?: string }> => {
  const auth: Header = ["Authorization", `Bearer ${world.apiKey}`]
  const at = (mutation: string, request: WireRequest, certain = true): FuzzCase => ({
    operation: "HTTP",
    mutation,
    mustReject: certain,
    request
  })
  const raw = (mutation: string, bytes: string, certain = true) => ({
    operation: "HTTP (raw bytes)",
    mutation,
    mustReject: certain,
    request: { method: "(raw)", target: bytes.slice(0, 200) } satisfies WireRequest,
    bytes
  })
  const usersPath = `/api/v1/users/${world.userK.id}`
  return [
    ...["FOO", "PROPFIND", "TRACE", "CONNECT", "PURGE", "M".repeat(1_000)].map((method) =>
      at(`method ${method.slice(0, 20)}`, { method, target: usersPath, headers: [auth] })
    ),
    at("method OPTIONS", { method: "OPTIONS", target: "/api/v1/users", headers: [auth] }, false),
    ...["Expect: bogus", "Expect: 200-ok"].map((line) =>
      at(line, { method: "GET", target: usersPath, headers: [auth, ["Expect", line.slice(8)]] })
    ),
    at("Expect: 100-continue-not", {
      method: "GET",
      target: usersPath,
      headers: [auth, ["Expect", "100-continue-not"]]
    }, false),
    at("a 17 KiB header", { method: "GET", target: usersPath, headers: [auth, ["X-Pad", "p".repeat(17 * KiB)]] }),
    at("a 64 KiB header", { method: "GET", target: usersPath, headers: [auth, ["X-Pad", "p".repeat(64 * KiB)]] }),
    at("1,000 headers", {
      method: "GET",
      target: usersPath,
      headers: [auth, ...Array.from({ length: 1_000 }, (_, i): Header => [`X-H${i}`, "v"])]
    }, false),
    at("a 20,000-character target", {
      method: "GET",
      target: `/api/v1/users?external_user_id=${"t".repeat(20_000)}`,
      headers: [auth]
    }),
    at(
      "an absolute-form target",
      { method: "GET", target: `https://evil.example${usersPath}`, headers: [auth] },
      false
    ),
    at("the asterisk target", { method: "GET", target: "*", headers: [auth] }, false),
    at("a target without a slash", { method: "GET", target: "api/v1/users", headers: [auth] }),
    at("a NUL in a header value", { method: "GET", target: usersPath, headers: [auth, ["X-A", "a\u0000b"]] }),
    at("a NUL in the credential", {
      method: "GET",
      target: usersPath,
      headers: [["Authorization", `Bearer ${world.apiKey}\u0000`]]
    }),
    at("a space in a header name", { method: "GET", target: usersPath, headers: [auth, ["X A", "b"]] }),
    at("an empty header name", { method: "GET", target: usersPath, headers: [auth, ["", "b"]] }),
    at("two Content-Length values", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Type", "application/json"], ["Content-Length", "2"], ["Content-Length", "3"]],
      body: "{}"
    }),
    at("a negative Content-Length", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Length", "-1"]],
      body: ""
    }),
    at("a Content-Length that is not a number", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Length", "abc"]],
      body: ""
    }),
    at("Content-Length and chunked", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Type", "application/json"], ["Content-Length", "5"], ["Transfer-Encoding", "chunked"]],
      body: "2\r\n{}\r\n0\r\n\r\n"
    }),
    at("a bad chunk size", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Type", "application/json"], ["Transfer-Encoding", "chunked"]],
      body: "zz\r\n{}\r\n0\r\n\r\n"
    }),
    at("an unknown transfer coding", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Type", "application/json"], ["Transfer-Encoding", "gzip"]],
      body: "{}"
    }),
    at("a gzip content encoding that is not gzip", {
      method: "POST",
      target: "/api/v1/users",
      headers: [auth, ["Content-Type", "application/json"], ["Content-Encoding", "gzip"]],
      body: "{\"externalUserId\":\"gz\"}"
    }, false),
    at("Upgrade: h2c", {
      method: "GET",
      target: usersPath,
      headers: [auth, ["Upgrade", "h2c"], ["Connection", "Upgrade, HTTP2-Settings"], [
        "HTTP2-Settings",
        "AAMAAABkAAQAAP__"
      ]]
    }, false),
    at("Upgrade: websocket", {
      method: "GET",
      target: usersPath,
      headers: [auth, ["Upgrade", "websocket"], ["Connection", "Upgrade"], ["Sec-WebSocket-Key", "x"], [
        "Sec-WebSocket-Version",
        "13"
      ]]
    }, false),
    at("a GET with a body", {
      method: "GET",
      target: usersPath,
      headers: [auth, ["Content-Type", "application/json"]],
      body: "{\"x\":1}"
    }, false),
    at("a DELETE with a body", {
      method: "DELETE",
      target: "/api/v1/users/not-a-uuid",
      headers: [auth, ["Content-Type", "application/json"]],
      body: "{}"
    }),
    at("an unknown route with a 2 MiB body", {
      method: "POST",
      target: "/nothing-here",
      headers: [["Content-Type", "application/json"]],
      body: "x".repeat(2 * MiB)
    }),
    raw("HTTP/2.0 on the request line", `GET / HTTP/2.0\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n`, false),
    raw("HTTP/0.9", `GET /\r\n\r\n`, false),
    raw("HTTP/1.0 without Host", `GET /api/v1/users HTTP/1.0\r\n\r\n`, false),
    raw("HTTP/1.1 without Host", `GET /api/v1/users HTTP/1.1\r\nConnection: close\r\n\r\n`),
    raw("two Host headers", `GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`, false),
    raw("bare LF line ends", `GET / HTTP/1.1\nHost: 127.0.0.1:{port}\nConnection: close\n\n`, false),
    raw(
      "a header line without a colon",
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nnonsense\r\nConnection: close\r\n\r\n`
    ),
    raw(
      "an obsolete folded header",
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-A: a\r\n  folded\r\nConnection: close\r\n\r\n`,
      false
    ),
    raw("a lowercase method", `get / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n`),
    raw(
      "a space in the target",
      `GET /api/v1/users /x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n`
    ),
    raw(
      "a raw CR in the target",
      `GET /api/v1/\rusers HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n`
    ),
    raw("binary garbage", "\u0000\u0001\u0002\u0003\u00ff\r\n\r\n"),
    raw("a TLS-looking record inside TLS", "\u0016\u0003\u0001\u0000\u0005hello\r\n\r\n")
  ]
}

// ---------------------------------------------------------------------------------------------
// The Prometheus scrape (`/metrics`, with METRICS_TOKEN set)

/** The fuzzed server's `METRICS_TOKEN`. */
const metricsToken = "fuzz-metrics-token-0123456789"

const metricsCases: fc.Arbitrary<FuzzCase> = fc.record({
  // (HEAD is left out: its answers have no body, so no JSON error body to check.)
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE"),
  credential: fc.constantFrom<readonly [string, ReadonlyArray<Header>, boolean]>(
    ["no credential", [], true],
    ["the token", [["Authorization", `Bearer ${metricsToken}`]], false],
    ["the token without its scheme", [["Authorization", metricsToken]], true],
    ["the token in lower-case scheme", [["Authorization", `bearer ${metricsToken}`]], false],
    ["the token with one character more", [["Authorization", `Bearer ${metricsToken}x`]], true],
    ["a prefix of the token", [["Authorization", `Bearer ${metricsToken.slice(0, 10)}`]], true],
    ["an empty bearer", [["Authorization", "Bearer "]], true],
    ["a 5,000-character bearer", [["Authorization", `Bearer ${"t".repeat(5_000)}`]], true],
    ["a NUL in the bearer", [["Authorization", "Bearer a%00b"]], true],
    ["two bearers", [["Authorization", `Bearer ${metricsToken} Bearer x`]], true],
    ["the token in X-App-Api-Key", [["X-App-Api-Key", metricsToken]], true]
  ),
  query: fc.constantFrom("", "?name[]=pulsebridge_http_requests_total", "?%FF=%00", `?x=${"q".repeat(5_000)}`),
  extra: oddHeaders
}).map(({ credential: [label, headers, certain], extra, method, query }): FuzzCase => ({
  operation: `${method} /metrics`,
  mutation: `${label}, query ${query.slice(0, 20)}`,
  // Only GET with the token is served; every other request is refused.
  mustReject: certain || method !== "GET",
  request: { method, target: `/metrics${query}`, headers: [...headers, ...extra] }
}))

// ---------------------------------------------------------------------------------------------

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(
  makeTestServer({ sandbox: true, metricsToken: Option.some(Redacted.make(metricsToken)) }),
  { timeout: "600 seconds", excludeTestServices: true }
)("fuzz", (it) => {
  it.effect(
    "the OpenAPI document lists every endpoint of the contract, and each has a generator",
    () =>
      Effect.gen(function*() {
        const { document, world } = yield* setUp
        const operations = operationsOf(document)
        for (const endpoint of specEndpoints) {
          expect(operations.map((operation) => operation.label)).toContain(`${endpoint.method} ${endpoint.path}`)
        }
        for (const operation of operations) {
          if (operation.body?.contentType === "application/json") {
            expect(validBodies[operation.label], `a valid body for ${operation.label}`).toBeDefined()
            // the requests the cases change in one place are themselves accepted
            const reply = yield* sendWire(requestOf(world, operation, { mutation: "none", certain: false }, []))
            expect(reply.status, `${operation.label}: ${reply.text.slice(0, 300)}`).toBeLessThan(300)
          }
        }
      }),
    fuzzTimeout
  )

  it.effect("generated bad requests to every operation", () =>
    Effect.gen(function*() {
      const { document, world } = yield* setUp
      const recorder = new Recorder("operations")
      const operations = operationsOf(document).filter((operation) =>
        operation.body?.contentType !== "multipart/form-data"
      )
      yield* fuzzOperations(recorder, document, world, operations)
      yield* finish(recorder)
    }), fuzzTimeout)

  it.effect(
    "generated bad requests to the portal's users, webhook endpoints and sandbox routes",
    () =>
      Effect.gen(function*() {
        const { world } = yield* setUp
        const document = portalDataDocument()
        const operations = portalOperationsOf(document)
        const paths = new Set(operations.map((operation) => operation.path))
        for (const group of [UsersGroup, WebhooksGroup, SandboxGroup]) {
          for (const endpoint of Object.values(group.endpoints) as Array<{ readonly path: string }>) {
            expect(paths, `the portal document lists ${endpoint.path}`).toContain(
              endpoint.path.replace(/:(\w+)/g, "{$1}")
            )
          }
        }
        // The requests the cases change in one place are themselves accepted.
        for (const operation of operations.filter((o) => o.body?.contentType === "application/json")) {
          expect(validBodies[operation.label], `a valid body for ${operation.label}`).toBeDefined()
          const reply = yield* sendWire(requestOf(world, operation, { mutation: "none", certain: false }, []))
          expect(reply.status, `${operation.label}: ${reply.text.slice(0, 300)}`).toBeLessThan(300)
        }
        yield* erasuresFinished
        const recorder = new Recorder("portal operations")
        yield* fuzzOperations(recorder, document, world, operations)
        yield* finish(recorder)
      }),
    fuzzTimeout
  )

  it.effect("the user's own id in any case answers as in lower case", () =>
    Effect.gen(function*() {
      const { document, world } = yield* setUp
      const recorder = new Recorder("id case")
      const operations = operationsOf(document).filter((operation) =>
        operation.method === "GET" && operation.path.includes("{userId}")
      )
      for (const operation of operations) {
        const lower = requestOf(world, operation, { mutation: "none", certain: false }, [])
        const upper = requestOf(world, operation, {
          mutation: "userId in upper case",
          certain: false,
          pathValues: { userId: world.userT.id.toUpperCase() }
        }, [])
        const expected = yield* sendWire(lower)
        const reply = yield* sendWire(upper)
        recorder.check(
          { operation: operation.label, mutation: "userId in upper case", mustReject: false, request: upper },
          reply,
          []
        )
        if (reply.status !== expected.status) {
          recorder.fail(`upper-case own id answers ${reply.status}, lower case ${expected.status}`, {
            operation: operation.label,
            mutation: "userId in upper case",
            mustReject: false,
            request: upper
          }, reply)
        }
      }
      yield* finish(recorder)
    }), fuzzTimeout)

  it.effect("generated bad scan uploads", () =>
    Effect.gen(function*() {
      const { world } = yield* setUp
      const recorder = new Recorder("scans")
      const operation = "POST /api/v1/users/{userId}/journal-entries/scans"
      const target = `/api/v1/users/${world.userT.id}/journal-entries/scans`
      const drafts = samples(operation, fc.tuple(scanDrafts(world), oddHeaders), Math.max(20, fuzzRuns * 3))
      const toCase = (draft: ScanDraft, extra: ReadonlyArray<Header>): FuzzCase => {
        const contentType = draft.contentType === undefined
          ? `multipart/form-data; boundary=${boundary}`
          : draft.contentType
        return {
          operation,
          mutation: draft.mutation,
          mustReject: draft.certain,
          request: {
            method: "POST",
            target,
            headers: [
              ...(draft.credential ?? [["Authorization", `Bearer ${world.userT.token}`] as const]),
              ...(contentType === null ? [] : [["Content-Type", contentType] as const]),
              ...extra
            ],
            body: draft.body
          }
        }
      }
      yield* runCases(recorder, drafts.map(([draft, extra]) => toCase(draft, extra)))
      // once: an upload over 10 MiB
      const big = multipart([imagePart(new Uint8Array(Buffer.concat([png, Buffer.alloc(10 * MiB)]))), ...validFields])
      yield* runCases(recorder, [toCase({ mutation: "an upload over 10 MiB", certain: true, body: big }, [])])
      yield* finish(recorder)
    }), fuzzTimeout)

  it.effect(
    "generated requests to the provider webhook routes and the sandbox consent pages",
    () =>
      Effect.gen(function*() {
        const { world } = yield* setUp
        const recorder = new Recorder("webhooks and consent pages")
        yield* runCases(recorder, samples("webhooks", webhookCases(world), fuzzRuns * 4))
        yield* runCases(recorder, samples("consent", consentCases, fuzzRuns * 2))
        yield* finish(recorder)
      }),
    fuzzTimeout
  )

  it.effect("generated requests to the Prometheus scrape", () =>
    Effect.gen(function*() {
      yield* setUp
      const recorder = new Recorder("metrics")
      yield* runCases(recorder, samples("metrics", metricsCases, fuzzRuns * 2))
      yield* finish(recorder)
    }), fuzzTimeout)

  it.effect(
    "generated bad requests to every operation of the portal's JSON API, with a logged-in session",
    () =>
      Effect.gen(function*() {
        const { world } = yield* setUp
        const document = portalDocument()
        const operations = portalOperationsOf(document)
        expect(operations.map((operation) => operation.label).sort()).toEqual([
          "GET /portal/api/apps",
          "GET /portal/api/apps/{appId}",
          "GET /portal/api/apps/{appId}/keys",
          "GET /portal/api/apps/{appId}/providers",
          "GET /portal/api/audit",
          "GET /portal/api/operators",
          "GET /portal/api/session",
          "PATCH /portal/api/apps/{appId}",
          "POST /portal/api/apps",
          "POST /portal/api/apps/{appId}/keys",
          "POST /portal/api/apps/{appId}/keys/{keyId}/revoke",
          "POST /portal/api/login",
          "POST /portal/api/logout",
          "POST /portal/api/setup",
          "PUT /portal/api/apps/{appId}/providers/{provider}"
        ])
        // the requests the cases change in one place are themselves accepted (the setup's token is never valid)
        for (const operation of operations) {
          if (operation.body?.contentType !== "application/json" || operation.path.endsWith("/setup")) continue
          expect(validBodies[operation.label], `a valid body for ${operation.label}`).toBeDefined()
          const reply = yield* sendWire(requestOf(world, operation, { mutation: "none", certain: false }, []))
          expect(reply.status, `${operation.label}: ${reply.text.slice(0, 300)}`).toBeLessThan(300)
        }
        const recorder = new Recorder("portal")
        yield* fuzzOperations(recorder, document, world, operations)
        // the session outlived every case: none of them logged it out
        const session = yield* sendWire(requestOf(world, operations.find((o) => o.path === "/portal/api/session")!, {
          mutation: "none",
          certain: false
        }, []))
        expect(session.status).toBe(200)
        yield* finish(recorder)
      }),
    fuzzTimeout
  )

  it.effect("requests malformed at the HTTP level", () =>
    Effect.gen(function*() {
      const { world } = yield* setUp
      const recorder = new Recorder("HTTP")
      let before = yield* digest
      for (const fuzzCase of wireCases(world)) {
        const reply = "bytes" in fuzzCase && fuzzCase.bytes !== undefined
          ? yield* sendBytes(fuzzCase.bytes)
          : yield* sendWire(fuzzCase.request)
        const after = yield* digest
        recorder.check(fuzzCase, reply, changedTables(before, after))
        before = after
      }
      yield* finish(recorder)
    }), fuzzTimeout)
})
