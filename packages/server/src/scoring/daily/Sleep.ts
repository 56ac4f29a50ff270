/**
 * The sleep pillar: duration, efficiency, continuity, latency, deep and REM share of the night's
 * main sleep, the regularity of the sleep midpoint over 7 nights and its timing; and, when the
 * journal has entries before the night, the caffeine still active at sleep onset and the time since
 * the last meal, as penalties that only take points off.
 */
import type { PillarBreakdown } from "@pulsebridge/domain"
import * as Curves from "../Curves.js"
import type { BedtimeIntake } from "../Intake.js"
import type { Days } from "./Days.js"
import type { Draft, Penalties } from "./Factors.js"
import { assemblePillar, scored, unavailable } from "./Factors.js"
import { IntakeWeights, MinWeekNights, Weights } from "./Parameters.js"

/** `caffeine` and `lateMeal`, each only when the journal has something for it; from the journal, so no provider. */
export const intakePenalties = (intake: BedtimeIntake): Penalties => {
  const drafts: Array<Draft> = []
  if (intake.caffeineMg !== null) {
    drafts.push(
      scored(
        "caffeine",
        intake.caffeineMg,
        "mg",
        { kind: "target", value: 30 },
        Curves.piecewise(Curves.Breakpoints.caffeine, intake.caffeineMg),
        null
      )
    )
  }
  if (intake.lastMealHours !== null) {
    drafts.push(
      scored(
        "lateMeal",
        intake.lastMealHours,
        "h",
        { kind: "target", value: 3 },
        Curves.piecewise(Curves.Breakpoints.lateMeal, intake.lastMealHours),
        null
      )
    )
  }
  return { weights: IntakeWeights, drafts }
}

export const sleepPillar = (days: Days, day: number): PillarBreakdown => {
  const night = days.get(day)?.mainSleep ?? null
  const drafts: Array<Draft> = []
  const asleep = night?.asleepMinutes ?? null
  const src = night?.source ?? null

  drafts.push(
    asleep !== null ?
      scored(
        "duration",
        asleep / 60,
        "h",
        { kind: "range", low: 7, high: 9 },
        Curves.piecewise(Curves.Breakpoints.sleepDuration, asleep / 60),
        src
      ) :
      unavailable("duration", "h", { kind: "range", low: 7, high: 9 })
  )
  const efficiency = night?.efficiencyPercent ?? null
  drafts.push(
    efficiency !== null ?
      scored(
        "efficiency",
        efficiency,
        "%",
        { kind: "target", value: 95 },
        Curves.piecewise(Curves.Breakpoints.sleepEfficiency, efficiency),
        src
      ) :
      unavailable("efficiency", "%", { kind: "target", value: 95 })
  )
  const awake = night?.awakeMinutes ?? null
  drafts.push(
    awake !== null ?
      scored(
        "continuity",
        awake,
        "min",
        { kind: "target", value: 20 },
        Curves.piecewise(Curves.Breakpoints.sleepContinuity, awake),
        src
      ) :
      unavailable("continuity", "min", { kind: "target", value: 20 })
  )
  const latency = night?.latencyMinutes ?? null
  drafts.push(
    latency !== null ?
      scored(
        "latency",
        latency,
        "min",
        { kind: "target", value: 20 },
        Curves.piecewise(Curves.Breakpoints.sleepLatency, latency),
        src
      ) :
      unavailable("latency", "min", { kind: "target", value: 20 })
  )
  const deep = night !== null && night.deepMinutes !== null && asleep !== null && asleep > 0 ?
    100 * night.deepMinutes / asleep :
    null
  drafts.push(
    deep !== null ?
      scored(
        "deepSleep",
        deep,
        "%",
        { kind: "target", value: 15 },
        Curves.piecewise(Curves.Breakpoints.deepSleep, deep),
        src
      ) :
      unavailable("deepSleep", "%", { kind: "target", value: 15 })
  )
  const rem = night !== null && night.remMinutes !== null && asleep !== null && asleep > 0 ?
    100 * night.remMinutes / asleep :
    null
  drafts.push(
    rem !== null ?
      scored(
        "remSleep",
        rem,
        "%",
        { kind: "target", value: 20 },
        Curves.piecewise(Curves.Breakpoints.remSleep, rem),
        src
      ) :
      unavailable("remSleep", "%", { kind: "target", value: 20 })
  )

  // Regularity: spread of the sleep midpoint over the last 7 nights.
  const midpoints: Array<number> = []
  for (let t = day - 6; t <= day; t++) {
    const m = days.get(t)?.mainSleep?.midpointMinutes
    if (m !== undefined) midpoints.push(m)
  }
  if (night !== null && midpoints.length >= MinWeekNights) {
    const mean = midpoints.reduce((a, b) => a + b, 0) / midpoints.length
    const sd = Math.sqrt(midpoints.reduce((a, m) => a + (m - mean) ** 2, 0) / (midpoints.length - 1))
    drafts.push(
      scored(
        "regularity",
        sd,
        "min",
        { kind: "target", value: 30, days: midpoints.length },
        Curves.piecewise(Curves.Breakpoints.regularity, sd),
        src
      )
    )
  } else {
    drafts.push(unavailable("regularity", "min", { kind: "target", value: 30 }))
  }

  drafts.push(
    night !== null ?
      scored(
        "timing",
        (night.midpointMinutes - 720) / 60,
        "h from midnight",
        { kind: "range", low: 0, high: 3 },
        Curves.piecewise(Curves.Breakpoints.timing, night.midpointMinutes),
        src
      ) :
      unavailable("timing", "h from midnight", { kind: "range", low: 0, high: 3 })
  )
  const intake = night === null ? null : days.get(day)?.intake ?? null
  return assemblePillar(
    Weights.sleep,
    drafts,
    night !== null,
    [],
    100,
    intake === null ? null : intakePenalties(intake)
  )
}
