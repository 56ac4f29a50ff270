/**
 * The parameters of the daily scores in one place: the factor and pillar weights, the targets, and
 * the thresholds (coverage, illness signal, minimum nights and days). `AlgorithmVersion` names this
 * set; a change here that moves scores is a new version.
 *
 * 1.1 added the journal's `caffeine` and `lateMeal` to the sleep score; a day without journal entries
 * before its sleep scores exactly as in 1.0.
 *
 * 1.2 takes the pillars' inputs from whichever connected provider has them (Garmin's and Google Health's sleep,
 * HRV, SpO2, respiratory rate and skin temperature, by the providers' priority): a sleep's own asleep and latency
 * minutes, a day's respiratory rate from the recovery of the main sleep's provider, a skin temperature given as its
 * deviation from the wearer's baseline. A user whose data is WHOOP's alone scores exactly as in 1.1.
 */
export const AlgorithmVersion = "1.2"

export const Weights = {
  sleep: {
    duration: 0.30,
    efficiency: 0.15,
    continuity: 0.10,
    latency: 0.05,
    deepSleep: 0.10,
    remSleep: 0.10,
    regularity: 0.15,
    timing: 0.05
  },
  recovery: {
    hrv: 0.35,
    restingHeartRate: 0.20,
    lastNightSleep: 0.15,
    sleepDebt: 0.05,
    respiratoryRate: 0.075,
    skinTemperature: 0.075,
    spo2: 0.05,
    trainingLoad: 0.05
  },
  activity: {
    steps: 0.25,
    activeMinutes: 0.30,
    sedentaryTime: 0.15,
    hourlyMovement: 0.05,
    trainingBalance: 0.15,
    activeCalories: 0.10
  },
  overall: { sleep: 0.35, recovery: 0.35, activity: 0.30 }
} as const

/**
 * What was eaten and drunk before the main sleep, from the journal. These factors only take points
 * off the sleep score: each costs `weight x (100 - subScore)` points, the other factors keep their
 * weights, and without journal entries to read they are absent (see `Intake.ts`).
 */
export const IntakeWeights = {
  caffeine: 0.10,
  lateMeal: 0.05
} as const

export const Intake = {
  /** Journal entries consumed this long before sleep onset, or less, are read. */
  windowHours: 24,
  /** Caffeine's elimination half-life in healthy adults (it varies from about 2 to 10 h). */
  caffeineHalfLifeHours: 5,
  /** A coffee of unknown caffeine: brewed coffee, 107 mg per 250 mL; one 250 mL cup when its volume is unknown too. */
  coffeeCaffeineMg: 107,
  coffeeCupMl: 250,
  /** A meal whose energy is known to be under this is a snack and not the last meal. */
  snackKcal: 100
} as const

export const Targets = {
  steps: 8000,
  /** WHO: 150 minutes of moderate activity a week, vigorous minutes count double. */
  weeklyActiveMinutes: 150,
  activeCalories: 400,
  /** The sleep debt counts each night's sleep (naps included) short of this. */
  sleepNeedMinutes: 420
} as const

/** A pillar needs this share of its weight scored. */
export const MinCoverage = 0.6
/** Recovery is capped here on a possible illness signal. */
export const IllnessCap = 33
export const IllnessSkinTempDelta = 1.0
export const IllnessRespiratoryDelta = 2
/** HRV more than this many SD over baseline is flagged. */
export const HrvHighZ = 2
/** Nights (of 7) needed for the 7-day HRV mean, sleep regularity and sleep debt. */
export const MinHrvWeekNights = 3
export const MinWeekNights = 5
/** Days (of 7) of activity needed for the weekly active-minutes factor. */
export const MinActiveMinuteDays = 4
/** Days with load in the last 28 needed for the training balance. */
export const MinTrainingBalanceDays = 21
/** Days with load in the 28 before yesterday needed for the recovery training-load factor. */
export const MinTrainingLoadDays = 14
