/**
 * CPU profiles of the benchmark's phases, on request: with `BENCH_CPU_PROFILE=<dir>`, the backfill and
 * each of PulseBridge's and the Effect floor's measured route runs are recorded by V8's sampling profiler (through `node:inspector`, in
 * this process, which is the server's) and written to `<dir>/<phase>-<database kind>.cpuprofile`, to open in
 * Chrome DevTools or VS Code. Profiling costs some speed, so figures of such a run are only indicative.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { Session } from "node:inspector/promises"
import * as path from "node:path"

const directory = (): string | undefined => {
  const dir = process.env["BENCH_CPU_PROFILE"]
  return dir === undefined || dir === "" ? undefined : path.resolve(dir)
}

export const profiling = (): boolean => directory() !== undefined

/** Runs `effect` under the CPU profiler when `BENCH_CPU_PROFILE` is set; the profile is written even on failure. */
export const profiled = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const dir = directory()
  if (dir === undefined) return effect
  return Effect.acquireUseRelease(
    Effect.promise(async () => {
      const session = new Session()
      session.connect()
      await session.post("Profiler.enable")
      await session.post("Profiler.setSamplingInterval", { interval: 500 })
      await session.post("Profiler.start")
      return session
    }),
    () => effect,
    (session) =>
      Effect.promise(async () => {
        const { profile } = await session.post("Profiler.stop")
        session.disconnect()
        fs.mkdirSync(dir, { recursive: true })
        const file = path.join(dir, `${name}.cpuprofile`)
        fs.writeFileSync(file, JSON.stringify(profile))
        process.stdout.write(`  CPU profile of ${name}: ${file}\n`)
      })
  )
}
