/**
 * The address rules of webhook URLs: which addresses count as internal, which URLs are refused by
 * their form, and the delivery's DNS guard, which refuses a connection to a host whose answer names
 * an internal address (so a name that resolves differently after the URL was checked gains nothing).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { AddressRefusedError, guardedLookup, isInternalAddress, urlProblem } from "../../src/events/Addresses.js"

const production = { production: true, sandbox: false, allowPrivate: false }
const development = { production: false, sandbox: false, allowPrivate: false }
const sandbox = { production: false, sandbox: true, allowPrivate: false }

const lookup = (rules: typeof production, host: string, all: boolean) =>
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

  it("URL forms: https everywhere, http only to loopback in sandbox mode, internal hosts only outside production", () => {
    expect(urlProblem("https://example.com/x", production)).toBeUndefined()
    expect(urlProblem("http://example.com/x", development)).toMatch(/https/)
    expect(urlProblem("http://127.0.0.1:3000/x", development)).toMatch(/https/)
    expect(urlProblem("http://127.0.0.1:3000/x", sandbox)).toBeUndefined()
    expect(urlProblem("http://localhost:3000/x", sandbox)).toBeUndefined()
    expect(urlProblem("http://example.com/x", sandbox)).toMatch(/https/)
    expect(urlProblem("https://127.0.0.1/x", development)).toBeUndefined()
    expect(urlProblem("https://127.0.0.1/x", production)).toMatch(/private/)
    expect(urlProblem("https://127.0.0.1/x", { ...production, allowPrivate: true })).toBeUndefined()
    expect(urlProblem("https://a:b@example.com/x", development)).toMatch(/user name/)
    expect(urlProblem("https://example.com/x#frag", development)).toMatch(/fragment/)
  })

  it.effect("the delivery's lookup refuses a name resolving to an internal address in production only", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(lookup(production, "localhost", false))
      expect(refused).toBeInstanceOf(AddressRefusedError)
      expect(refused.message).toMatch(/localhost resolves to .*private, loopback or link-local/)
      expect(yield* Effect.flip(lookup(production, "localhost", true))).toBeInstanceOf(AddressRefusedError)
      expect(yield* lookup(development, "localhost", false)).toMatch(/^(127\.0\.0\.1|::1)$/)
      expect(yield* lookup({ ...production, allowPrivate: true }, "localhost", true)).toEqual(
        expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })])
      )
    }))
})
