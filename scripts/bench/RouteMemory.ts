/**
 * The memory of the route load: the resident size of the benchmark's process (PulseBridge's server, and the idle
 * baseline servers beside it) when idle before every route is loaded once more on PulseBridge alone, its peak while
 * they are, and a minute after the last run, with nothing forced: what an operator's server shows after a burst of
 * traffic. The idle figure is taken after a full collection and a few quiet seconds, so that the garbage of the
 * backfill and of the comparisons does not count as idle.
 * Goals: the peak at most +150 MiB over idle, and back within +50 MiB of it a minute after.
 */
import * as Effect from "effect/Effect"
import { collectGarbage } from "./Backfill.js"
import type { SummaryRow } from "./Report.js"

export const routeMemoryGoals = { peakMiB: 150, afterMiB: 50, afterSeconds: 60 } as const

export interface RouteMemory {
  readonly idleMiB: number
  readonly peakMiB: number
  readonly afterMiB: number
  /** The heap used a minute after, and once more after a forced full collection (what the server still holds). */
  readonly heapAfterMiB: number
  readonly heapAfterGcMiB: number | undefined
}

const mib = (bytes: number) => bytes / 2 ** 20

/** A difference in MiB with its sign: "+12", "-3". */
const signed = (value: number) => `${value < 0 ? "-" : "+"}${Math.abs(Math.round(value))}`

/**
 * Runs `load` between the idle and the after figures, sampling the resident size every 100 ms for its peak.
 * `afterSeconds` is the wait after it (default a minute).
 */
export const measureRouteMemory = <A, E, R>(
  load: Effect.Effect<A, E, R>,
  afterSeconds: number = routeMemoryGoals.afterSeconds
) =>
  Effect.gen(function*() {
    collectGarbage()?.()
    yield* Effect.sleep("3 seconds")
    const idle = process.memoryUsage().rss
    let peak = idle
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 100)
    const result = yield* load.pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
    peak = Math.max(peak, process.memoryUsage().rss)
    yield* Effect.sleep(`${afterSeconds} seconds`)
    const after = process.memoryUsage()
    const collect = collectGarbage()
    collect?.()
    const memory: RouteMemory = {
      idleMiB: mib(idle),
      peakMiB: mib(peak),
      afterMiB: mib(after.rss),
      heapAfterMiB: mib(after.heapUsed),
      heapAfterGcMiB: collect === undefined ? undefined : mib(process.memoryUsage().heapUsed)
    }
    return { result, memory }
  })

/** The line of the terminal and the row of the summary table. */
export const describeRouteMemory = (m: RouteMemory) =>
  `RSS idle ${Math.round(m.idleMiB)} MiB, peak ${signed(m.peakMiB - m.idleMiB)} MiB, a minute after ${
    signed(m.afterMiB - m.idleMiB)
  } MiB`

export const routeMemorySummary = (m: RouteMemory): SummaryRow => ({
  key: "route-memory",
  measured: describeRouteMemory(m),
  goal: `peak <= +${routeMemoryGoals.peakMiB} MiB, a minute after <= +${routeMemoryGoals.afterMiB} MiB`,
  met: m.peakMiB - m.idleMiB <= routeMemoryGoals.peakMiB && m.afterMiB - m.idleMiB <= routeMemoryGoals.afterMiB
})

/** The section's paragraph. */
export const routeMemoryMarkdown = (m: RouteMemory) =>
  [
    "### Memory of the route load",
    "",
    "Resident size of the benchmark's process (the PulseBridge server, and the baseline servers idle beside it), " +
    "idle after a full collection, at its peak while every route above was loaded once more on PulseBridge alone " +
    "(the same load, no warm-up), and a minute after the last run with nothing forced " +
    "(`scripts/bench/RouteMemory.ts`).",
    "",
    "| idle | peak under load | a minute after | heap used a minute after | heap after a full collection |",
    "| ---: | ---: | ---: | ---: | ---: |",
    `| ${Math.round(m.idleMiB)} MiB | ${Math.round(m.peakMiB)} MiB (${signed(m.peakMiB - m.idleMiB)}) | ${
      Math.round(m.afterMiB)
    } MiB (${signed(m.afterMiB - m.idleMiB)}) | ${Math.round(m.heapAfterMiB)} MiB | ${
      m.heapAfterGcMiB === undefined ? "-" : `${Math.round(m.heapAfterGcMiB)} MiB`
    } |`,
    "",
    `Goals: the peak at most +${routeMemoryGoals.peakMiB} MiB over idle, and a minute after within +${routeMemoryGoals.afterMiB} MiB.`
  ].join("\n")
