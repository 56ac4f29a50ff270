/**
 * Operator passwords: scrypt from `node:crypto` (memory-hard, no native dependency to build), run on
 * libuv's thread pool so hashing never blocks the event loop. Each hash carries its own salt and
 * parameters (`scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`), so the cost can be raised later while older
 * hashes still verify. Comparison is constant-time.
 *
 * Every hash the portal and the CLI run goes through `Passwords`: a few at a time (each takes tens of
 * milliseconds of a core and 32 MiB), behind a short queue. A caller who finds the queue full is
 * refused at once (`PasswordHashingBusy`, answered 429), so a burst of logins cannot pile up work that
 * slows every other request of the process.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
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

/** The stored form of a password (not bounded: `Passwords.hash` is, and is what callers use). */
export const hashPassword = (password: string, params: { logN: number; r: number; p: number } = defaultParams) =>
  Effect.gen(function*() {
    const salt = crypto.randomBytes(16)
    const key = yield* derive(password, salt, params.logN, params.r, params.p)
    return `scrypt$${params.logN}$${params.r}$${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
  }).pipe(Effect.orDie)

const stored = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/

/** Whether `password` matches the stored hash; a malformed hash matches nothing (not bounded: see `Passwords`). */
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

/** How many password hashes run at once, and how many callers may wait for one; tests may set their own. */
export class PasswordHashLimits extends Context.Reference<PasswordHashLimits>()(
  "@pulsebridge/server/PasswordHashLimits",
  {
    defaultValue: () => ({
      /** Hashes running at once: two of libuv's four threads, the rest stays free for files and DNS. */
      concurrency: 2,
      /** Callers waiting for a hash beyond those running; one more is refused at once. */
      maxWaiting: 8,
      /** A caller that waited this long is refused rather than served late. */
      maxWait: Duration.seconds(5)
    })
  }
) {}

/** Every place in the queue of password hashes is taken: try again in a moment. */
export class PasswordHashingBusy extends Data.TaggedError("PasswordHashingBusy")<{}> {
  readonly retryAfterSeconds = 1
  override get message() {
    return "The server is busy checking other passwords; try again in 1 s"
  }
}

export const passwordHashes = Metric.counter("pulsebridge_portal_password_hashes_total", {
  description:
    "Password hashes (scrypt) of the portal and the CLI, by outcome: hashed, or busy (refused, the queue full)",
  incremental: true
})

const countHash = (outcome: "hashed" | "busy") => Metric.increment(Metric.tagged(passwordHashes, "outcome", outcome))

export class Passwords extends Effect.Service<Passwords>()("@pulsebridge/server/Passwords", {
  effect: Effect.gen(function*() {
    const limits = yield* PasswordHashLimits
    const permits = yield* Effect.makeSemaphore(limits.concurrency)
    /** Callers running or waiting for a hash. */
    const queued = yield* Ref.make(0)
    const capacity = limits.concurrency + limits.maxWaiting
    const busy = Effect.zipRight(countHash("busy"), Effect.fail(new PasswordHashingBusy()))

    /** Runs one hash when a permit is free; refused at once when the queue is full, or after `maxWait`. */
    const bounded = <A>(hash: Effect.Effect<A>): Effect.Effect<A, PasswordHashingBusy> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const admitted = yield* Ref.modify(queued, (n) => (n >= capacity ? [false, n] : [true, n + 1]))
          if (!admitted) return yield* busy
          const since = yield* Clock.currentTimeMillis
          return yield* restore(
            permits.withPermits(1)(Effect.gen(function*() {
              if ((yield* Clock.currentTimeMillis) - since > Duration.toMillis(limits.maxWait)) return yield* busy
              yield* countHash("hashed")
              return yield* hash
            }))
          ).pipe(Effect.ensuring(Ref.update(queued, (n) => n - 1)))
        })
      )

    return {
      /**
       * Refused at once when the queue is full: called before an attempt is counted, so that an attempt the
       * server had no room to check is not held against its address.
       */
      checkRoom: Effect.flatMap(Ref.get(queued), (n) => (n >= capacity ? busy : Effect.void)),

      /** The stored form of a new password. */
      hash: (password: string) => bounded(hashPassword(password)),

      /** Whether `password` matches the stored hash. */
      verify: (password: string, hash: string) => bounded(verifyPassword(password, hash))
    } as const
  })
}) {}
