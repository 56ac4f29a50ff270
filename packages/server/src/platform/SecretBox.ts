/**
 * Encryption at rest for provider secrets (client secrets, access/refresh tokens, OAuth 1.0a
 * token secrets): AES-256-GCM with a key from `SECRET_KEY`. Every sealed value names the id of
 * its key, so keys can rotate: the current key seals, older keys (`SECRET_KEYS_OLD`) still open.
 * Without `SECRET_KEY` outside production, a key is generated once into `DATA_DIR/secret.key`
 * (mode 0600).
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { EnvVars } from "./EnvVars.js"
import { ServerConfig } from "./ServerConfig.js"

export class SecretBoxError extends Data.TaggedError("SecretBoxError")<{ readonly message: string }> {}

interface Key {
  readonly id: string
  readonly bytes: Buffer
}

/** Any string becomes a 256-bit key through SHA-256; the key id is a short hash of the key. */
const deriveKey = (secret: string): Key => {
  const bytes = crypto.createHash("sha256").update(secret, "utf8").digest()
  const id = crypto.createHash("sha256").update(bytes).digest("hex").slice(0, 8)
  return { id, bytes }
}

export interface SecretBoxShape {
  /** `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts). */
  readonly seal: (plain: Redacted.Redacted | string) => string
  readonly open: (sealed: string) => Effect.Effect<Redacted.Redacted, SecretBoxError>
  readonly currentKeyId: string
  /** A deterministic secret derived from the key, for values the server must re-derive (sandbox). */
  readonly derive: (label: string) => string
}

export const makeSecretBox = (current: string, old: ReadonlyArray<string> = []): SecretBoxShape => {
  const key = deriveKey(current)
  const keys = new Map([key, ...old.map(deriveKey)].map((k) => [k.id, k.bytes]))
  return {
    currentKeyId: key.id,
    seal: (plain) => {
      const iv = crypto.randomBytes(12)
      const cipher = crypto.createCipheriv("aes-256-gcm", key.bytes, iv)
      const text = typeof plain === "string" ? plain : Redacted.value(plain)
      const ciphertext = Buffer.concat([cipher.update(text, "utf8"), cipher.final()])
      const tag = cipher.getAuthTag()
      return ["v1", key.id, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")]
        .join(".")
    },
    open: (sealed) =>
      Effect.try({
        try: () => {
          const [version, keyId, iv, tag, ciphertext] = sealed.split(".")
          if (
            version !== "v1" || keyId === undefined || iv === undefined || tag === undefined || ciphertext === undefined
          ) {
            throw new Error("not a sealed value")
          }
          const bytes = keys.get(keyId)
          if (bytes === undefined) throw new Error(`no key with id ${keyId} (set SECRET_KEYS_OLD to open it)`)
          const decipher = crypto.createDecipheriv("aes-256-gcm", bytes, Buffer.from(iv, "base64url"))
          decipher.setAuthTag(Buffer.from(tag, "base64url"))
          const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()])
          return Redacted.make(plain.toString("utf8"))
        },
        catch: (e) => new SecretBoxError({ message: `cannot open a sealed secret: ${(e as Error).message}` })
      }),
    derive: (label) => crypto.createHmac("sha256", key.bytes).update(label).digest("base64url")
  }
}

const loadOrCreateKeyFile = (dataDir: string): string => {
  const file = path.join(dataDir, "secret.key")
  try {
    return fs.readFileSync(file, "utf8").trim()
  } catch {
    fs.mkdirSync(dataDir, { recursive: true })
    const secret = crypto.randomBytes(32).toString("base64url")
    try {
      fs.writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" })
      return secret
    } catch {
      // Another process created it first; use theirs.
      return fs.readFileSync(file, "utf8").trim()
    }
  }
}

export class SecretBox extends Context.Tag("@pulsebridge/server/SecretBox")<SecretBox, SecretBoxShape>() {
  static readonly Default = Layer.effect(
    SecretBox,
    Effect.gen(function*() {
      const config = yield* ServerConfig
      const old = yield* Config.array(Config.string(), EnvVars.secretKeysOld).pipe(Config.withDefault([]))
      if (Option.isSome(config.secretKey)) return makeSecretBox(Redacted.value(config.secretKey.value), old)
      if (config.production) {
        // Built anyway so that commands without secrets work; any use of it fails clearly.
        const missing = () => {
          throw new Error("SECRET_KEY must be set when NODE_ENV=production")
        }
        return {
          currentKeyId: "none",
          seal: missing,
          open: () => Effect.fail(new SecretBoxError({ message: "SECRET_KEY must be set when NODE_ENV=production" })),
          derive: missing
        } satisfies SecretBoxShape
      }
      return makeSecretBox(loadOrCreateKeyFile(config.dataDir), old)
    })
  )
}
