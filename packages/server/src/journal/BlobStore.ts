/**
 * Where meal photos are kept. `BlobStore` is the interface; `BlobStore.Default` keeps each blob as a
 * file under `DATA_DIR/blobs` (written to a temporary name and renamed, so a crash never leaves a
 * half-written blob under its real key). Another backend (e.g. an object store) is one more layer.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { ServerConfig } from "../platform/ServerConfig.js"

export class BlobNotFound extends Data.TaggedError("BlobNotFound")<{ readonly key: string }> {}

export interface BlobStoreShape {
  /** The `storageProvider` named in the image metadata. */
  readonly provider: string
  readonly put: (key: string, bytes: Uint8Array) => Effect.Effect<void>
  readonly get: (key: string) => Effect.Effect<Uint8Array, BlobNotFound>
  readonly remove: (key: string) => Effect.Effect<void>
}

const safeKey = (key: string) => {
  if (!/^[A-Za-z0-9._/-]+$/.test(key) || key.split("/").some((part) => part === "" || part === "." || part === "..")) {
    throw new Error(`invalid blob key ${key}`)
  }
  return key
}

/** A store over the files under `root`. */
export const makeLocalBlobStore = (root: string): BlobStoreShape => {
  const file = (key: string) => path.join(root, safeKey(key))
  return {
    provider: "local",
    put: (key, bytes) =>
      Effect.promise(async () => {
        const target = file(key)
        await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
        const temporary = `${target}.${crypto.randomBytes(6).toString("hex")}.tmp`
        await fs.writeFile(temporary, bytes, { mode: 0o600 })
        await fs.rename(temporary, target)
      }),
    get: (key) =>
      Effect.tryPromise({
        try: () => fs.readFile(file(key)),
        catch: () => new BlobNotFound({ key })
      }).pipe(Effect.map((buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))),
    remove: (key) => Effect.promise(() => fs.rm(file(key), { force: true }))
  }
}

/** A store in memory, for tests of the services that keep photos. */
export const makeMemoryBlobStore = (): BlobStoreShape & { readonly keys: () => ReadonlyArray<string> } => {
  const blobs = new Map<string, Uint8Array>()
  return {
    provider: "memory",
    put: (key, bytes) => Effect.sync(() => void blobs.set(safeKey(key), new Uint8Array(bytes))),
    get: (key) =>
      Effect.suspend(() => {
        const bytes = blobs.get(key)
        return bytes === undefined ? Effect.fail(new BlobNotFound({ key })) : Effect.succeed(bytes)
      }),
    remove: (key) => Effect.sync(() => void blobs.delete(key)),
    keys: () => [...blobs.keys()].sort()
  }
}

export class BlobStore extends Context.Tag("@pulsebridge/server/BlobStore")<BlobStore, BlobStoreShape>() {
  /** Files under `DATA_DIR/blobs`. */
  static readonly Default = Layer.effect(
    BlobStore,
    Effect.map(ServerConfig, (config) => makeLocalBlobStore(path.resolve(config.dataDir, "blobs")))
  )

  /** A fresh store in memory for each build (`makeMemoryBlobStore`). */
  static readonly Test = Layer.sync(BlobStore, makeMemoryBlobStore)
}
