/**
 * Where a simulator keeps what must survive a restart (issued codes, tokens, users,
 * subscriptions): a tiny get/set of one JSON-serialisable state object, in memory by default
 * or in a file written through on every change.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** One simulator's persisted state; give each simulator its own store. */
export interface SimulatorStore {
  /** The last state set, or `undefined` when nothing was stored yet. */
  readonly get: () => unknown
  readonly set: (state: unknown) => void
}

export const memoryStore = (): SimulatorStore => {
  let current: unknown = undefined
  return {
    get: () => current === undefined ? undefined : JSON.parse(JSON.stringify(current)),
    set: (state) => {
      current = JSON.parse(JSON.stringify(state))
    }
  }
}

/**
 * A store backed by the JSON file at `file`. Writes go to a temporary sibling and are renamed
 * over the file, so a crash mid-write leaves the previous state rather than a torn one. An
 * unreadable file counts as empty: a sandbox should start rather than refuse.
 */
export const fileStore = (file: string): SimulatorStore => {
  let cached: string | undefined = undefined
  return {
    get: () => {
      if (cached === undefined) {
        try {
          cached = fs.readFileSync(file, "utf8")
        } catch {
          return undefined
        }
      }
      try {
        return JSON.parse(cached)
      } catch {
        return undefined
      }
    },
    set: (state) => {
      const text = JSON.stringify(state)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
      // tokens are sandbox-only, but still nobody else's business
      fs.writeFileSync(temp, text, { mode: 0o600 })
      fs.renameSync(temp, file)
      cached = text
    }
  }
}
