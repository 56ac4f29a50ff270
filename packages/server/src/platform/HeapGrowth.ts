/**
 * How far the JavaScript heap may grow past what the last full collection kept before V8 collects it again
 * (`HEAP_GROWTH_PERCENT`, default 20: the next full collection comes once the heap is 1.2 times what survived the
 * last one; `0` leaves it to V8).
 *
 * Why: a backfill or a burst of large answers allocates far more than it keeps, and what lives across a database
 * round trip is promoted to the old generation, where only a full collection frees it. With V8's own growth factor
 * (up to 4x for a heap that grows fast) a process that keeps 100 MiB let its heap reach 450 MiB of garbage during a
 * 365-day Dexcom backfill before collecting any (`docs/benchmarks.md`, "What limits the 365-day backfill"); at 20%
 * it stayed within 65 MiB of where it started, for more frequent but smaller collections. Nothing the process
 * holds changes: only when garbage is collected.
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as v8 from "node:v8"
import { EnvVars } from "./EnvVars.js"

export const defaultHeapGrowthPercent = 20

export const heapGrowthPercentConfig = Config.integer(EnvVars.heapGrowthPercent).pipe(
  Config.validate({
    message: `${EnvVars.heapGrowthPercent} must be 0 (V8's own policy) or 5 to 400`,
    validation: (n) => n === 0 || (n >= 5 && n <= 400)
  }),
  Config.withDefault(defaultHeapGrowthPercent)
)

/** Sets the heap's growth factor of this process; `serve` builds it first. */
export const HeapGrowthLive = Layer.effectDiscard(
  Effect.flatMap(
    heapGrowthPercentConfig,
    (percent) => Effect.sync(() => v8.setFlagsFromString(`--heap-growing-percent=${percent}`))
  )
)
