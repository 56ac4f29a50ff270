/**
 * The Dexcom simulator of the backfill benchmark, run in a process of its own (`node --import tsx`, started by
 * `Backfill.ts`) so that generating and serialising a year of readings neither runs on the event loop of the
 * server under test nor shows in its memory. The settings (`SimulatorSettings`) come as JSON in the environment
 * variable `PULSEBRIDGE_BENCH_SIMULATOR`. The
 * simulator's clock stands still at `nowMs`, so the readings it serves are exactly `dexcomRecords(..., nowMs)` and
 * the benchmark can check what was stored. Once listening it prints one line, `ready {"baseUrl": ...}`; it exits
 * when its stdin closes, which happens when the benchmark ends, however it ends.
 */
import { NodeRuntime } from "@effect/platform-node"
import { makeDexcomSimulator, serveSimulator } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import type { SimulatorSettings } from "./Backfill.js"

const settings = JSON.parse(process.env["PULSEBRIDGE_BENCH_SIMULATOR"] ?? "{}") as SimulatorSettings

const program = Effect.gen(function*() {
  const simulator = makeDexcomSimulator({
    baseUrl: "http://127.0.0.1",
    clients: [{ clientId: settings.clientId, clientSecret: settings.clientSecret }],
    seed: settings.seed,
    now: () => new Date(settings.nowMs),
    // A year in one go is over Dexcom's hourly allowance; the benchmark measures the server, not the waits.
    rateLimits: false
  })
  const served = yield* serveSimulator(simulator)
  process.stdout.write(`ready ${JSON.stringify({ baseUrl: served.baseUrl })}\n`)
  yield* Effect.async<void>((resume) => {
    process.stdin.once("close", () => resume(Effect.void))
    process.stdin.resume()
  })
}).pipe(Effect.scoped)

NodeRuntime.runMain(program, { disablePrettyLogger: true })
