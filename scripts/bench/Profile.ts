/**
 * CPU profiles of the benchmark's phases, on request: with `BENCH_CPU_PROFILE=<dir>`, the backfill and
 * each of PulseBridge's and the Effect floor's measured route runs are recorded by V8's sampling profiler (through `node:inspector`, in
 * this process, which is the server's) and written to `<dir>/<phase>-<database kind>.cpuprofile`, to open in
 * Chrome DevTools or VS Code. Profiling costs some speed, so figures of such a run are only indicative.
 *
 * With `BENCH_HEAP_PROFILE=<dir>` the same phases are recorded by V8's sampling heap profiler instead, counting
 * what was collected as well (`<phase>-<database kind>.heapprofile`): where the bytes a phase allocated were
 * allocated, and their total, which the machine's speed changes little (the allocation of a request is the
 * garbage collector's work).
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { Session } from "node:inspector/promises"
import * as path from "node:path"

const directoryOf = (variable: string): string | undefined => {
  const dir = process.env[variable]
  return dir === undefined || dir === "" ? undefined : path.resolve(dir)
}

const directory = (): string | undefined => directoryOf("BENCH_CPU_PROFILE")
const heapDirectory = (): string | undefined => directoryOf("BENCH_HEAP_PROFILE")

export const profiling = (): boolean => directory() !== undefined || heapDirectory() !== undefined

interface HeapNode {
  readonly selfSize: number
  readonly children: ReadonlyArray<HeapNode>
}

const totalBytes = (node: HeapNode): number =>
  node.children.reduce((sum, child) => sum + totalBytes(child), node.selfSize)

/**
 * Runs `effect` with one of V8's profilers on (an inspector session: `start` turns it on, `stop` gives the profile)
 * and writes the profile to `<dir>/<name>.<extension>`, even on failure; `report` says what was written.
 */
const recorded = <A, E, R, P>(
  effect: Effect.Effect<A, E, R>,
  options: {
    readonly dir: string
    readonly file: string
    readonly start: (session: Session) => Promise<void>
    readonly stop: (session: Session) => Promise<P>
    readonly report: (profile: P, file: string) => string
  }
): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const session = new Session()
      session.connect()
      await options.start(session)
      return session
    }),
    () => effect,
    (session) =>
      Effect.promise(async () => {
        const profile = await options.stop(session)
        session.disconnect()
        fs.mkdirSync(options.dir, { recursive: true })
        const file = path.join(options.dir, options.file)
        fs.writeFileSync(file, JSON.stringify(profile))
        process.stdout.write(`  ${options.report(profile, file)}\n`)
      })
  )

/**
 * Runs `effect` under the CPU profiler when `BENCH_CPU_PROFILE` is set, or under the sampling heap profiler, counting
 * collected objects too, when `BENCH_HEAP_PROFILE` is; the profile is written even on failure.
 */
export const profiled = <A, E, R>(
  name: string,
  effect: Effect.Effect<A, E, R>,
  /** What the phase did, counted (its requests): the heap profile's allocation is also given per unit. */
  units?: (a: A) => number
): Effect.Effect<A, E, R> => {
  const heapDir = heapDirectory()
  if (heapDir !== undefined) {
    let count: number | undefined
    return recorded(units === undefined ? effect : Effect.tap(effect, (a) => (count = units(a))), {
      dir: heapDir,
      file: `${name}.heapprofile`,
      start: async (session) => {
        await session.post("HeapProfiler.enable")
        await session.post("HeapProfiler.startSampling", {
          samplingInterval: 256,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true
        })
      },
      stop: async (session) => (await session.post("HeapProfiler.stopSampling")).profile,
      report: (profile, file) => {
        const bytes = totalBytes(profile.head as HeapNode)
        const each = count === undefined || count === 0
          ? ""
          : `, ${(bytes / count / 1024).toFixed(1)} KiB each of ${count}`
        return `heap profile of ${name}: ${file}, ${(bytes / 1_048_576).toFixed(1)} MiB allocated${each}`
      }
    })
  }
  const dir = directory()
  if (dir === undefined) return effect
  return recorded(effect, {
    dir,
    file: `${name}.cpuprofile`,
    start: async (session) => {
      await session.post("Profiler.enable")
      await session.post("Profiler.setSamplingInterval", { interval: 500 })
      await session.post("Profiler.start")
    },
    stop: async (session) => (await session.post("Profiler.stop")).profile,
    report: (_profile, file) => `CPU profile of ${name}: ${file}`
  })
}
