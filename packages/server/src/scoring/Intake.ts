/**
 * What the journal says was eaten and drunk before a night's sleep: the caffeine still active at
 * sleep onset and the hours since the last meal. Pure; the sleep pillar scores them as `caffeine`
 * and `lateMeal` (`daily/Sleep.ts`).
 *
 * Read are the entries consumed in the `Intake.windowHours` (24 h) up to sleep onset, the start of
 * the night's main sleep; later entries belong to the next night. Which entries count:
 * - caffeine: any entry with `caffeineMg` above 0, at that amount; a `Coffee` entry whose caffeine
 *   is unknown, as brewed coffee (107 mg per 250 mL, one 250 mL cup when its volume is unknown too);
 *   a `Coffee` entry with 0 mg (decaf), as 0 mg. Other entries of unknown caffeine are not counted:
 *   nothing is guessed for a drink that may have none.
 * - meals: `Meal` entries, except those whose energy is known to be under `Intake.snackKcal`.
 * A night with neither has no intake at all, so its sleep score is the one without a journal.
 */
import type { EntryKind } from "@pulsebridge/domain"
import * as Curves from "./Curves.js"
import { Intake } from "./daily/Parameters.js"

/** A journal entry as the scores read it. */
export interface JournalRow {
  readonly entryKind: EntryKind
  readonly consumedAtUtc: Date
  readonly caffeineMg: number | null
  readonly caloriesKcal: number | null
  readonly volumeMl: number | null
}

/** The intake before one night's sleep. */
export interface BedtimeIntake {
  /** Caffeine still active at sleep onset, mg; null when no entry read carries caffeine. */
  readonly caffeineMg: number | null
  /** Hours from the last meal to sleep onset; null when no meal was read. */
  readonly lastMealHours: number | null
}

const hourMs = 3_600_000

/** The caffeine of an entry, mg, or null when the entry does not count as caffeine. */
export const caffeineOf = (entry: JournalRow): number | null => {
  if (entry.caffeineMg !== null && entry.caffeineMg > 0) return entry.caffeineMg
  if (entry.entryKind !== "Coffee") return null
  if (entry.caffeineMg !== null) return 0
  const ml = entry.volumeMl !== null && entry.volumeMl > 0 ? entry.volumeMl : Intake.coffeeCupMl
  return Intake.coffeeCaffeineMg * ml / Intake.coffeeCupMl
}

/** Whether an entry counts as a meal: a `Meal` not known to be a snack. */
export const isMeal = (entry: JournalRow): boolean =>
  entry.entryKind === "Meal" && !(entry.caloriesKcal !== null && entry.caloriesKcal < Intake.snackKcal)

/** A user's journal in time order, for the look-ups of each night. */
export class Journal {
  private readonly entries: ReadonlyArray<JournalRow>
  private readonly times: Float64Array
  constructor(rows: ReadonlyArray<JournalRow>) {
    this.entries = [...rows].sort((a, b) => a.consumedAtUtc.getTime() - b.consumedAtUtc.getTime())
    this.times = Float64Array.from(this.entries, (e) => e.consumedAtUtc.getTime())
  }

  /** The intake read for a sleep that starts at `onset`, or null when the journal has nothing for it. */
  before(onset: Date): BedtimeIntake | null {
    const end = onset.getTime()
    const start = end - Intake.windowHours * hourMs
    let lo = 0
    let hi = this.times.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.times[mid]! < start) lo = mid + 1
      else hi = mid
    }
    let caffeine: number | null = null
    let lastMeal: number | null = null
    for (let i = lo; i < this.times.length && this.times[i]! <= end; i++) {
      const entry = this.entries[i]!
      const hours = (end - this.times[i]!) / hourMs
      const mg = caffeineOf(entry)
      if (mg !== null) {
        caffeine = (caffeine ?? 0) + Curves.caffeineRemaining(mg, hours, Intake.caffeineHalfLifeHours)
      }
      if (isMeal(entry)) lastMeal = hours
    }
    return caffeine === null && lastMeal === null ? null : { caffeineMg: caffeine, lastMealHours: lastMeal }
  }
}
