/**
 * The random values of an authorization: verifier length and alphabet, the S256 challenge against
 * the RFC 7636 appendix B example, and state entropy.
 */
import { describe, expect, it } from "@effect/vitest"
import { codeChallengeS256, makeCodeVerifier, makeState } from "@pulsebridge/providers"

const base64url = /^[A-Za-z0-9_-]+$/

describe("Pkce", () => {
  it("makes verifiers of 43-128 base64url characters, different each time", () => {
    const verifiers = Array.from({ length: 50 }, makeCodeVerifier)
    for (const v of verifiers) {
      expect(v).toMatch(base64url)
      expect(v.length).toBeGreaterThanOrEqual(43)
      expect(v.length).toBeLessThanOrEqual(128)
      // At least 32 bytes of randomness.
      expect(Buffer.from(v, "base64url").length).toBeGreaterThanOrEqual(32)
    }
    expect(new Set(verifiers).size).toBe(verifiers.length)
  })

  it("computes the S256 challenge of RFC 7636 appendix B", () => {
    expect(codeChallengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )
  })

  it("makes states of at least 128 random bits in base64url", () => {
    const states = Array.from({ length: 50 }, makeState)
    for (const s of states) {
      expect(s).toMatch(base64url)
      expect(Buffer.from(s, "base64url").length * 8).toBeGreaterThanOrEqual(128)
    }
    expect(new Set(states).size).toBe(states.length)
  })
})
