/**
 * Operator passwords: scrypt from `node:crypto` (memory-hard, no native dependency to build), run on
 * libuv's thread pool so hashing never blocks the event loop. Each hash carries its own salt and
 * parameters (`scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`), so the cost can be raised later while older
 * hashes still verify. Comparison is constant-time.
 */
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"

/**
 * N = 2^15, r = 8, p = 1: 32 MiB of memory and tens of milliseconds per hash. Each hash names its
 * parameters, so these can be raised (OWASP suggests N = 2^17) without invalidating stored passwords.
 */
export const defaultParams = { logN: 15, r: 8, p: 1 } as const

const keyLength = 32

/** What scrypt needs in memory (128 * N * r) with room to spare; Node refuses above `maxmem`. */
const maxmemFor = (logN: number, r: number) => 256 * 2 ** logN * r

const derive = (password: string, salt: Buffer, logN: number, r: number, p: number) =>
  Effect.async<Buffer, Error>((resume) => {
    crypto.scrypt(password.normalize("NFC"), salt, keyLength, { N: 2 ** logN, r, p, maxmem: maxmemFor(logN, r) }, (
      error,
      key
    ) => resume(error === null ? Effect.succeed(key) : Effect.fail(error)))
  })

/** The stored form of a password. */
export const hashPassword = (password: string, params: { logN: number; r: number; p: number } = defaultParams) =>
  Effect.gen(function*() {
    const salt = crypto.randomBytes(16)
    const key = yield* derive(password, salt, params.logN, params.r, params.p)
    return `scrypt$${params.logN}$${params.r}$${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
  }).pipe(Effect.orDie)

const stored = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/

/** Whether `password` matches the stored hash; a malformed hash matches nothing. */
export const verifyPassword = (password: string, hash: string) =>
  Effect.gen(function*() {
    const match = stored.exec(hash)
    if (match === null) return false
    const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
    if (logN < 10 || logN > 22 || r < 1 || p < 1) return false
    const expected = Buffer.from(match[5]!, "base64url")
    const key = yield* derive(password, Buffer.from(match[4]!, "base64url"), logN, r, p)
    return expected.length === key.length && crypto.timingSafeEqual(expected, key)
  }).pipe(Effect.orDie)

/**
 * A hash of a password nobody knows, made once: a login for an unknown email is checked against it, so
 * that it takes as long as one for a known email.
 */
export const dummyHash = Effect.runSync(Effect.cached(hashPassword(crypto.randomBytes(24).toString("base64url"))))

/** Constant-time equality of two strings (their UTF-8 bytes), for tokens. */
export const sameToken = (a: string, b: string): boolean => {
  const left = crypto.createHash("sha256").update(a).digest()
  const right = crypto.createHash("sha256").update(b).digest()
  return crypto.timingSafeEqual(left, right) && a.length === b.length
}
