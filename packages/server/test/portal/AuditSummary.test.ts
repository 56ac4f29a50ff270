/**
 * The audit log's readable parts, without a server: the one-line summary of each action's detail (never the
 * actor's own keys, and `user erased` once an erasure scrubbed it) and the CSV cell that a spreadsheet shows as
 * text instead of running it as a formula.
 */
import { describe, expect, it } from "@effect/vitest"
import { summarize } from "../../src/portal/operators/Audit.js"
import { csvCell } from "../../src/portal/operators/OperatorsHttp.js"

describe("audit summaries", () => {
  it("says what changed, per action, in one line", () => {
    expect(summarize("app.rename", { from: "Old", to: "New" })).toBe("name: Old → New")
    expect(summarize("apiKey.create", { name: null, prefix: "pb_sk_abc", permissions: ["users:read", "users:write"] }))
      .toBe("prefix: pb_sk_abc, permissions: users:read, users:write")
    expect(summarize("login.failed", { email: "a@example.com", reason: "throttled" })).toBe(
      "email: a@example.com, reason: throttled"
    )
    expect(summarize("operator.create", { email: "a@example.com", setupLink: true, via: "cli", osUser: "root" }))
      .toBe("email: a@example.com, setup link")
    expect(summarize("operator.create", { email: "v@example.com", role: "viewer", setupLink: true }))
      .toBe("email: v@example.com, role: viewer, setup link")
    expect(summarize("operator.role", { email: "a@example.com", from: "admin", to: "viewer" })).toBe(
      "email: a@example.com, role: admin → viewer"
    )
    expect(summarize("operator.password.reset", { email: "a@example.com", sessionsEnded: 1 })).toBe(
      "email: a@example.com, new setup link, sessions ended: 1"
    )
    expect(summarize("operator.password.change", { sessionsEnded: 0 })).toBe("other sessions ended: 0")
    expect(summarize("operator.secondFactor.reset", { email: "a@example.com" })).toBe(
      "email: a@example.com, second factor removed"
    )
    expect(summarize("settings.update", { secondFactorRequired: true })).toBe("second factor required: on")
    expect(summarize("operator.enable", { email: "a@example.com" })).toBe("email: a@example.com")
    expect(summarize("operator.disable", { email: "a@example.com", sessionsEnded: 2 })).toBe(
      "email: a@example.com, sessions ended: 2"
    )
    expect(summarize("webhookEndpoint.create", { url: "https://example.com/h", events: null })).toBe(
      "url: https://example.com/h, events: all"
    )
    expect(summarize("webhookEndpoint.update", { changed: { enabled: false } })).toBe("changed: enabled false")
    expect(summarize("webhookEndpoint.delete", { url: "https://example.com/h" })).toBe("url: https://example.com/h")
    expect(summarize("webhookEndpoint.rotateSecret", { previousSecretExpiresAt: "2026-11-28T09:00:00.000Z" })).toBe(
      "previous secret signs until 2026-11-28T09:00:00.000Z"
    )
    expect(summarize("webhookEndpoint.test", { eventId: "evt_1" })).toBe("test event evt_1")
    expect(summarize("webhookDelivery.retry", { endpointId: "e", eventId: "v", eventType: "user.erased" })).toBe(
      "event type: user.erased"
    )
    expect(
      summarize("connection.resync", { userId: "u", kind: "recent", from: "2026-01-01", to: "2026-01-30" })
    ).toBe("kind: recent, days: 2026-01-01 to 2026-01-30")
    expect(summarize("sandbox.faults.set", { faults: [{ kind: "rateLimit", path: "/oauth2/token", count: 2 }] }))
      .toBe("faults: rateLimit ×2 on /oauth2/token")
    expect(summarize("sandbox.faults.set", { faults: [] })).toBe("faults: cleared")
    expect(
      summarize("providerCredentials.create", { provider: "WHOOP", clientId: "c", webhookVerificationCode: "set" })
    )
      .toBe("provider: WHOOP, client id: c, verification code: set")
    expect(summarize("logout", {})).toBe("")
  })

  it("names the actor nowhere, and an erased user by nothing of its own", () => {
    expect(summarize("user.erase", { via: "apiKey", apiKeyId: "k", apiKeyPrefix: "pb_sk_x" })).toBe("")
    expect(summarize("user.export", { userErased: true })).toBe("user erased")
    expect(summarize("sandbox.connect", { provider: "Oura", userErased: true })).toBe("provider: Oura, user erased")
  })

  it("keeps a line short", () => {
    const line = summarize("app.create", { name: "x".repeat(500) })
    expect(line).toHaveLength(200)
    expect(line.endsWith("…")).toBe(true)
  })
})

describe("CSV cells", () => {
  it("quotes every cell and doubles its quotes", () => {
    expect(csvCell("plain")).toBe("\"plain\"")
    expect(csvCell("a \"b\", c\nd")).toBe("\"a \"\"b\"\", c\nd\"")
    expect(csvCell(null)).toBe("\"\"")
  })

  it("leads a cell a spreadsheet would run as a formula with an apostrophe", () => {
    for (const text of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(csvCell(text)).toBe(`"'${text}"`)
    expect(csvCell("a=1")).toBe("\"a=1\"")
  })
})
