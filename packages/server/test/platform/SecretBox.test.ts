import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { checkRedirectUrl } from "../../src/connections/ConnectFlow.js"
import { makeSecretBox } from "../../src/platform/SecretBox.js"

describe("SecretBox", () => {
  it.effect("seals to a value that names its key and hides the plain text, and opens it again", () =>
    Effect.gen(function*() {
      const box = makeSecretBox("current-key")
      const sealed = box.seal(Redacted.make("refresh-token-123"))
      expect(sealed.startsWith(`v1.${box.currentKeyId}.`)).toBe(true)
      expect(sealed).not.toContain("refresh-token-123")
      expect(Redacted.value(yield* box.open(sealed))).toBe("refresh-token-123")
    }))

  it.effect("sealing the same value twice gives different ciphertexts", () =>
    Effect.sync(() => {
      const box = makeSecretBox("k")
      expect(box.seal("same")).not.toBe(box.seal("same"))
    }))

  it.effect("after a key rotation, values sealed with the old key still open when it is listed as old", () =>
    Effect.gen(function*() {
      const old = makeSecretBox("old-key")
      const sealed = old.seal("secret")
      const rotated = makeSecretBox("new-key", ["old-key"])
      expect(Redacted.value(yield* rotated.open(sealed))).toBe("secret")
      const withoutOld = makeSecretBox("new-key")
      const error = yield* Effect.flip(withoutOld.open(sealed))
      expect(error.message).toContain("SECRET_KEYS_OLD")
    }))

  it.effect("a tampered ciphertext does not open", () =>
    Effect.gen(function*() {
      const box = makeSecretBox("k")
      const parts = box.seal("secret").split(".")
      parts[4] = Buffer.from("tampered").toString("base64url")
      const error = yield* Effect.flip(box.open(parts.join(".")))
      expect(error._tag).toBe("SecretBoxError")
    }))
})

describe("redirect URL rules", () => {
  it("accepts https anywhere and http only on loopback hosts", () => {
    expect(checkRedirectUrl("https://app.example.com/done", [])).toBeUndefined()
    expect(checkRedirectUrl("http://localhost:3000/done", [])).toBeUndefined()
    expect(checkRedirectUrl("http://127.0.0.1/cb", [])).toBeUndefined()
    expect(checkRedirectUrl("http://app.example.com/done", [])).toContain("https")
    expect(checkRedirectUrl("/relative", [])).toContain("absolute")
    expect(checkRedirectUrl("javascript:alert(1)", [])).toContain("https")
    expect(checkRedirectUrl("https://user:pw@app.example.com/", [])).toContain("credentials")
  })

  it("must match one of the app's prefixes when it has any", () => {
    const prefixes = ["https://app.example.com/oauth/"]
    expect(checkRedirectUrl("https://app.example.com/oauth/done", prefixes)).toBeUndefined()
    expect(checkRedirectUrl("https://evil.example.com/oauth/done", prefixes)).toContain("prefixes")
  })
})
