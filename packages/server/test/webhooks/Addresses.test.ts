/**
 * The address rules of webhook URLs: which addresses count as internal, which URLs are refused by
 * their form, and the delivery's DNS guard, which refuses a connection to a host whose answer names
 * an internal address (so a name that resolves differently after the URL was checked gains nothing).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { AddressRefusedError, guardedLookup, isInternalAddress, urlProblem } from "../../src/events/Addresses.js"

/** The guard on (the default outside sandbox mode), as without `WEBHOOK_ALLOW_PRIVATE`. */
const guarded = { sandbox: false, allowPrivate: false }
/** `WEBHOOK_ALLOW_PRIVATE=true`: the operator's receivers live on a private network. */
const allowPrivate = { sandbox: false, allowPrivate: true }
/** Sandbox mode at its default: the guard is off, so a newcomer's local receiver works. */
const sandbox = { sandbox: true, allowPrivate: true }

const lookup = (rules: typeof guarded, host: string, all: boolean) =>
  Effect.async<unknown, Error>((resume) => {
    guardedLookup(rules)(host, { all }, (error, address) =>
      resume(error === null ? Effect.succeed(address) : Effect.fail(error)))
  })

describe("webhook addresses", () => {
  it("internal addresses: private, loopback, link-local, mapped and NAT64 forms", () => {
    for (
      const address of [
        "10.0.0.1",
        "127.0.0.1",
        "127.255.0.9",
        "169.254.169.254",
        "172.31.255.255",
        "192.168.0.1",
        "100.64.0.1",
        "0.0.0.0",
        "::1",
        "::",
        "fd12::1",
        "fe80::1",
        "::ffff:10.0.0.1",
        "::ffff:7f00:1",
        "64:ff9b::a9fe:a9fe"
      ]
    ) expect(isInternalAddress(address), address).toBe(true)
    for (const address of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isInternalAddress(address), address).toBe(false)
    }
  })

  it("special IPv6 forms: IPv4-compatible, IPv4-translated, 6to4, Teredo, local-use NAT64, documentation", () => {
    for (
      const address of [
        // IPv4-compatible (::/96, deprecated): refused whatever the IPv4 inside.
        "::127.0.0.1",
        "::7f00:1",
        "::8.8.8.8",
        "0:0:0:0:0:0:7f00:1",
        // IPv4-translated (::ffff:0:0:0/96): refused whatever the IPv4 inside.
        "::ffff:0:10.0.0.1",
        "::ffff:0:a00:1",
        "::ffff:0:8.8.8.8",
        // 6to4 (2002::/16): the whole range, whatever the IPv4 it embeds.
        "2002::1",
        "2002:a00:1::1",
        "2002:7f00:1::",
        "2002:808:808::1",
        // Teredo (2001::/32), local-use NAT64 (64:ff9b:1::/48), documentation, discard, site-local.
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "64:ff9b:1::a00:1",
        "64:ff9b:1:ffff::808:808",
        "2001:db8::1",
        "100::1",
        "fec0::1",
        // Mapped and well-known NAT64 forms written out in full.
        "0:0:0:0:0:ffff:a00:1",
        "0064:ff9b:0000:0000:0000:0000:0a00:0001",
        "::ffff:127.0.0.1",
        // IPv4 special-purpose ranges.
        "192.0.2.1",
        "198.51.100.7",
        "203.0.113.9",
        "192.88.99.1"
      ]
    ) expect(isInternalAddress(address), address).toBe(true)
    for (const address of ["2a00:1450:4001::1", "64:ff9b::808:808", "::ffff:93.184.215.14", "2001:4860:4860::8888"]) {
      expect(isInternalAddress(address), address).toBe(false)
    }
  })

  it("URL forms: https everywhere, http only to loopback in sandbox mode, internal hosts only with the guard off", () => {
    expect(urlProblem("https://example.com/x", guarded)).toBeUndefined()
    expect(urlProblem("http://example.com/x", allowPrivate)).toMatch(/https/)
    expect(urlProblem("http://127.0.0.1:3000/x", allowPrivate)).toMatch(/https/)
    expect(urlProblem("http://127.0.0.1:3000/x", sandbox)).toBeUndefined()
    expect(urlProblem("http://localhost:3000/x", sandbox)).toBeUndefined()
    expect(urlProblem("http://example.com/x", sandbox)).toMatch(/https/)
    expect(urlProblem("https://127.0.0.1/x", sandbox)).toBeUndefined()
    expect(urlProblem("https://127.0.0.1/x", guarded)).toMatch(/private/)
    expect(urlProblem("https://127.0.0.1/x", allowPrivate)).toBeUndefined()
    // In sandbox mode with WEBHOOK_ALLOW_PRIVATE=false the guard is on: http to loopback passes the form, not the guard.
    expect(urlProblem("http://127.0.0.1:3000/x", { sandbox: true, allowPrivate: false })).toMatch(/private/)
    for (
      const url of [
        "https://[::127.0.0.1]/x",
        "https://[::ffff:0:10.0.0.1]/x",
        "https://[2002:a00:1::1]/x",
        "https://[64:ff9b:1::a00:1]/x",
        "https://[0:0:0:0:0:ffff:a00:1]/x"
      ]
    ) {
      expect(urlProblem(url, guarded), url).toMatch(/private/)
      expect(urlProblem(url, allowPrivate), url).toBeUndefined()
    }
    expect(urlProblem("https://a:b@example.com/x", allowPrivate)).toMatch(/user name/)
    expect(urlProblem("https://example.com/x#frag", allowPrivate)).toMatch(/fragment/)
  })

  it.effect("the delivery's lookup refuses a name resolving to an internal address while the guard is on", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(lookup(guarded, "localhost", false))
      expect(refused).toBeInstanceOf(AddressRefusedError)
      expect(refused.message).toMatch(/localhost resolves to a private, loopback or link-local address/)
      // The address itself is not told: an app must not learn what the server's own DNS answers.
      expect(refused.message).not.toMatch(/127\.0\.0\.1|::1/)
      expect(yield* Effect.flip(lookup(guarded, "localhost", true))).toBeInstanceOf(AddressRefusedError)
      expect(yield* lookup(sandbox, "localhost", false)).toMatch(/^(127\.0\.0\.1|::1)$/)
      expect(yield* lookup(allowPrivate, "localhost", true)).toEqual(
        expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })])
      )
    }))
})
