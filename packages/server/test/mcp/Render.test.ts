/**
 * The compact text of the MCP tools' answers, on small fixed inputs: the exact text (summary, paging lines,
 * table), the rounding of each kind of figure, `-` for a missing value, columns without any value left out,
 * runs of days without data, and empty ranges.
 */
import { describe, expect, it } from "@effect/vitest"
import type { DailyActivitySummary, DailyScore, GlucoseSummary, SleepSession } from "@pulsebridge/domain"
import { clockAtOffset, missingDays, num, pagingLines, signed, table, text } from "../../src/mcp/Compact.js"
import { renderActivity, renderGlucose, renderSleep, zones } from "../../src/mcp/RenderHealth.js"
import {
  renderConnections,
  renderDailyScores,
  renderGeneric,
  renderJournal,
  renderProfile
} from "../../src/mcp/RenderOther.js"

const whole = { continueFrom: null, partialDay: null }

const activity = (
  date: string,
  provider: string,
  steps: number,
  caloriesOut: number,
  distanceMeters: number
): typeof DailyActivitySummary.Encoded => ({
  connectionId: `c-${provider}`,
  provider,
  date,
  steps,
  caloriesOut,
  distanceMeters,
  lightActiveMinutes: 120.4,
  moderateActiveMinutes: 20,
  vigorousActiveMinutes: 10.6,
  sedentaryMinutes: 600,
  floorsClimbed: 3
})

const sleep = (overrides: Partial<typeof SleepSession.Encoded>): typeof SleepSession.Encoded => ({
  id: "s",
  providerRecordId: "p",
  connectionId: "c",
  provider: "Oura",
  date: "2026-03-02",
  startUtc: "2026-03-01T22:10:00.000Z",
  endUtc: "2026-03-02T05:55:00.000Z",
  utcOffsetMinutes: 60,
  isNap: false,
  inBedMinutes: 465,
  asleepMinutes: 412,
  awakeMinutes: 53,
  lightMinutes: 230,
  deepMinutes: 88,
  remMinutes: 94,
  efficiencyPercent: 88.6,
  latencyMinutes: 12,
  averageHeartRate: 54.4,
  lowestHeartRate: 47,
  hrvRmssdMs: 41.5,
  respiratoryRate: 14.25,
  spo2Percent: null,
  providerScore: 81,
  providerScoreScale: "OuraScore0To100",
  ...overrides
})

describe("compact pieces", () => {
  it("rounds to the given decimals without trailing zeros or a negative zero, and shows none as -", () => {
    expect(num(8123.5)).toBe("8124")
    expect(num(7.04, 1)).toBe("7")
    expect(num(7.06, 1)).toBe("7.1")
    expect(num(-0.04, 1)).toBe("0")
    expect(num(null)).toBe("-")
    expect(num(undefined)).toBe("-")
    expect(num(Number.NaN)).toBe("-")
    expect(num(1234567)).toBe("1234567")
    expect(signed(0.44, 1)).toBe("+0.4")
    expect(signed(-1.25, 1)).toBe("-1.2")
    expect(signed(0.01, 1)).toBe("0")
    expect(signed(null)).toBe("-")
  })

  it("quotes a text cell with a comma or a quote, keeps it on one line and cuts it", () => {
    expect(text("Chicken salad, bread")).toBe("\"Chicken salad, bread\"")
    expect(text("The \"big\" one")).toBe("\"The \"\"big\"\" one\"")
    expect(text("two\nlines")).toBe("two lines")
    expect(text("abcdefghij", 5)).toBe("abcd…")
    expect(text(null)).toBe("-")
    expect(text("")).toBe("-")
  })

  it("leaves out the columns without any value", () => {
    const rows = [{ a: 1, b: null }, { a: 2, b: null }]
    expect(table([
      { header: "a", cell: (r) => num(r.a) },
      { header: "b", cell: (r) => num(r.b) },
      { header: "c", cell: () => "x", when: false }
    ], rows)).toBe("a\n1\n2")
  })

  it("names the days without data as runs", () => {
    const present = new Set(["2026-03-01", "2026-03-04"])
    expect(missingDays("2026-03-01", "2026-03-07", present)).toBe("5 (2026-03-02..2026-03-03, 2026-03-05..2026-03-07)")
    expect(missingDays("2026-03-01", "2026-03-01", new Set(["2026-03-01"]))).toBe("none")
    const sparse = new Set(Array.from({ length: 15 }, (_, i) => `2026-03-${String(2 * i + 1).padStart(2, "0")}`))
    expect(missingDays("2026-03-01", "2026-03-29", sparse, 2)).toBe(
      "14 (2026-03-02, 2026-03-04, and 12 more runs)"
    )
  })

  it("says where a cut answer continues and which day is partial", () => {
    expect(pagingLines({ from: "2026-03-01", to: "2026-03-10", ...whole })).toEqual([])
    expect(pagingLines({ from: "2026-03-01", to: "2026-03-10", continueFrom: "2026-03-06", partialDay: null }))
      .toEqual([
        "CUT: this answer covers 2026-03-01 to 2026-03-05 only. For the rest, call again with from=2026-03-06 " +
        "and to=2026-03-10."
      ])
    expect(
      pagingLines({
        from: "2026-03-01",
        to: "2026-03-10",
        continueFrom: "2026-03-02",
        partialDay: { date: "2026-03-01", shown: 12, total: 30 }
      })[0]
    ).toBe(
      "PARTIAL DAY: 2026-03-01 alone is over the answer's size bound; only its first 12 of 30 items are shown " +
        "(the REST API serves the whole day)."
    )
  })

  it("shows a clock at the record's offset, or in UTC marked Z without one", () => {
    expect(clockAtOffset("2026-03-01T22:10:00.000Z", 60)).toBe("23:10")
    expect(clockAtOffset("2026-03-01T22:10:00.000Z", 120)).toBe("00:10")
    expect(clockAtOffset("2026-03-01T02:10:00.000Z", -300)).toBe("21:10")
    expect(clockAtOffset("2026-03-01T22:10:00.000Z", null)).toBe("22:10Z")
    expect(zones("{\"zone0\":1.4,\"zone1\":30}")).toBe("zone0:1 zone1:30")
    expect(zones("{}")).toBe("-")
    expect(zones("not json")).toBe("-")
  })
})

describe("tool renderings", () => {
  it("daily activity: a summary per provider with the gaps, then one line per day and provider", () => {
    const days = [
      activity("2026-03-01", "Fitbit", 8123.4, 2301.6, 6240),
      activity("2026-03-01", "Garmin", 7990, 2250, 6011),
      activity("2026-03-03", "Fitbit", 12001, 2650.2, 9050)
    ]
    expect(renderActivity({ from: "2026-03-01", to: "2026-03-03", ...whole, days })).toBe(
      [
        "Daily activity, 2026-03-01 to 2026-03-03 (3 days): 3 day records (Fitbit 2, Garmin 1).",
        "Fitbit: mean 10062 steps/day (total 20124), mean 2476 kcal out/day, mean 7.6 km/day, mean 31 " +
        "moderate+vigorous min/day; most steps 2026-03-03 (12001 steps), fewest 2026-03-01 (8123 steps); days " +
        "without data: 1 (2026-03-02).",
        "Garmin: mean 7990 steps/day (total 7990), mean 2250 kcal out/day, mean 6 km/day, mean 31 " +
        "moderate+vigorous min/day; days without data: 2 (2026-03-02..2026-03-03).",
        "date,provider,steps,kcal out,distance km,light min,moderate min,vigorous min,sedentary min,floors",
        "2026-03-01,Fitbit,8123,2302,6.2,120,20,11,600,3",
        "2026-03-01,Garmin,7990,2250,6,120,20,11,600,3",
        "2026-03-03,Fitbit,12001,2650,9.1,120,20,11,600,3"
      ].join("\n")
    )
  })

  it("an empty range says so in one line", () => {
    expect(renderActivity({ from: "2026-03-01", to: "2026-03-07", ...whole, days: [] })).toBe(
      "Daily activity, 2026-03-01 to 2026-03-07 (7 days): no day records."
    )
    expect(renderSleep({ from: "2026-03-01", to: "2026-03-01", ...whole, sleep: [] })).toBe(
      "Sleep, 2026-03-01 (1 day): no sessions."
    )
    expect(renderJournal({ from: "2026-03-01", to: "2026-03-01", ...whole, entries: [] })).toBe(
      "Nutrition journal, 2026-03-01 (1 day): no entries."
    )
    expect(renderDailyScores({ from: "2026-03-01", to: "2026-03-02", ...whole, days: [] })).toBe(
      "Daily scores (0-100), 2026-03-01 to 2026-03-02 (2 days): no days with scores."
    )
    expect(renderConnections({ connections: [] })).toBe(
      "No connections: the user has connected no wearable or glucose monitor."
    )
  })

  it("sleep: hours to 0.1, minutes, HR and HRV whole, breaths to 0.1, - for what the provider lacks, the cut", () => {
    const text = renderSleep({
      from: "2026-03-02",
      to: "2026-03-04",
      continueFrom: "2026-03-04",
      partialDay: null,
      sleep: [
        sleep({}),
        sleep({
          date: "2026-03-03",
          isNap: true,
          startUtc: "2026-03-03T13:00:00.000Z",
          endUtc: "2026-03-03T13:40:00.000Z",
          utcOffsetMinutes: null,
          inBedMinutes: 40,
          asleepMinutes: 35,
          awakeMinutes: null,
          lightMinutes: null,
          deepMinutes: null,
          remMinutes: null,
          efficiencyPercent: null,
          latencyMinutes: null,
          hrvRmssdMs: null,
          respiratoryRate: null,
          providerScore: null
        })
      ]
    })
    expect(text).toBe([
      "Sleep, 2026-03-02 to 2026-03-04 (3 days): 2 sessions (Oura 2).",
      "CUT: this answer covers 2026-03-02 to 2026-03-03 only. For the rest, call again with from=2026-03-04 and " +
      "to=2026-03-04.",
      "Oura: 1 night, 1 nap; nights' mean asleep 6.9 h, in bed 7.8 h, efficiency 89 %, HRV 42 ms, lowest HR 47 " +
      "bpm, score 81 (OuraScore0To100); days without data: none.",
      "Times are the sleeper's local clock (Z: UTC, the provider gave no offset).",
      "date,nap,start,end,in bed h,asleep h,light h,deep h,REM h,awake min,efficiency %,latency min,avg HR bpm," +
      "lowest HR bpm,HRV ms,breaths/min,score",
      "2026-03-02,-,23:10,06:55,7.8,6.9,3.8,1.5,1.6,53,89,12,54,47,42,14.3,81",
      "2026-03-03,nap,13:00Z,13:40Z,0.7,0.6,-,-,-,-,-,-,54,47,-,-,-"
    ].join("\n"))
  })

  it("glucose: the range's figures first, bands below 70 to 0.1 and the rest whole, GMI to 0.1", () => {
    const stats = (mean: number, inRange: number) => ({
      readings: 280,
      coveragePercent: 97.2,
      meanMgDl: mean,
      sdMgDl: 38.24,
      cvPercent: 29.8,
      minMgDl: 47,
      maxMgDl: 341,
      gmiPercent: 6.36,
      timeInRanges: { veryLow: 0.4, low: 1.9, inRange, high: 15.6, veryHigh: 3.8 }
    })
    const answer: typeof GlucoseSummary.Encoded = {
      from: "2026-03-01",
      to: "2026-03-02",
      ...whole,
      unit: "mg/dL",
      targetRange: { lowMgDl: 70, highMgDl: 180 },
      connections: [{ connectionId: "d", provider: "Dexcom", days: 2, stats: stats(128.44, 78.3) }],
      days: [
        { date: "2026-03-01", connectionId: "d", provider: "Dexcom", stats: stats(120.5, 82.5) },
        { date: "2026-03-02", connectionId: "d", provider: "Dexcom", stats: stats(136.4, 74.1) }
      ]
    }
    expect(renderGlucose(answer)).toBe([
      "Glucose summary, 2026-03-01 to 2026-03-02 (2 days), mg/dL, target range 70-180: 2 day summaries (Dexcom 2).",
      "Dexcom over the whole range (2 days with readings): 280 readings (97 % coverage), mean 128 mg/dL, SD 38, " +
      "CV 30 %, range 47-341, GMI 6.4 %; time in ranges: <54 0.4 %, 54-69 1.9 %, 70-180 78 %, 181-250 16 %, " +
      ">250 4 %; days without readings: none.",
      "Most in range 2026-03-01 (83 %), least 2026-03-02 (74 %).",
      "date,readings,coverage %,mean,SD,CV %,min,max,<54 %,54-69 %,70-180 %,181-250 %,>250 %",
      "2026-03-01,280,97,121,38,30,47,341,0.4,1.9,83,16,4",
      "2026-03-02,280,97,136,38,30,47,341,0.4,1.9,74,16,4"
    ].join("\n"))
  })

  it("daily scores: whole scores, the costliest factors with their units, flags and calibration", () => {
    const factor = (key: string, value: number | null, unit: string, pointsLost: number, state = "scored") => ({
      key,
      value,
      unit,
      reference: null,
      subScore: 50,
      weight: 0.2,
      effectiveWeight: 0.2,
      pointsLost,
      state,
      source: "Oura"
    })
    const pillar = (score: number | null, factors: Array<ReturnType<typeof factor>>, flags: Array<string> = []) => ({
      score,
      coverage: 1,
      calibrating: false,
      flags,
      factors
    })
    const day = {
      date: "2026-03-02",
      sleepScore: 72.6,
      activityScore: 80.4,
      recoveryScore: null,
      overallScore: 76.5,
      components: {
        sleep: pillar(72.6, [factor("duration", 6.24, "h", 12.3), factor("efficiency", 91, "%", 0.2)]),
        activity: pillar(80.4, [factor("steps", 6123, "steps", 6.6)]),
        recovery: {
          ...pillar(null, [factor("hrv", 41, "ms", 9, "calibrating")], ["possibleIllnessSignal"]),
          calibrating: true
        },
        overall: { score: 76.5, pillars: [] },
        algorithmVersion: "1"
      }
    } as unknown as typeof DailyScore.Encoded
    expect(renderDailyScores({ from: "2026-03-02", to: "2026-03-02", ...whole, days: [day] })).toBe([
      "Daily scores (0-100), 2026-03-02 (1 day): 1 day.",
      "Means: overall 77 (1 day), sleep 73 (1 day), recovery - (0 days), activity 80 (1 day).",
      "Costliest: the three factors that cost the day's pillar scores most points (pillar.factor value unit " +
      "-points); format json gives every factor with its baseline and weight.",
      "date,overall,sleep,recovery,activity,costliest,notes",
      "2026-03-02,77,73,-,80,sleep.duration 6.2 h -12; activity.steps 6123 steps -7," +
      "possibleIllnessSignal recovery calibrating"
    ].join("\n"))
  })

  it("journal: local times, whole nutrients, titles quoted when they hold a comma, day totals", () => {
    const entry = (title: string, consumedAtUtc: string, kcal: number | null, caffeine: number | null) => ({
      id: "e",
      entryKind: caffeine === null ? "Meal" as const : "Coffee" as const,
      entrySource: "Manual" as const,
      analysisStatus: "None" as const,
      title,
      notes: null,
      consumedAtUtc,
      journalDate: "2026-03-01",
      timezone: "Europe/Berlin",
      isUserEdited: false,
      nutrients: {
        caloriesKcal: kcal,
        proteinGrams: null,
        carbsGrams: null,
        fatGrams: null,
        fiberGrams: null,
        sugarGrams: null,
        sodiumMg: null,
        caffeineMg: caffeine,
        volumeMl: null
      },
      itemCount: 0,
      hasImage: false,
      createdAt: consumedAtUtc,
      updatedAt: consumedAtUtc
    })
    expect(renderJournal({
      from: "2026-03-01",
      to: "2026-03-01",
      ...whole,
      entries: [
        entry("Flat white", "2026-03-01T07:15:00.000Z", 110.4, 130),
        entry("Chicken salad, bread", "2026-03-01T11:30:00.000Z", null, null)
      ]
    })).toBe([
      "Nutrition journal, 2026-03-01 (1 day): 2 entries on 1 day (Coffee 1, Meal 1).",
      "Per day: 2026-03-01 110 kcal, 130 mg caffeine (sums of the entries whose nutrients are known).",
      "Time is the entry's local clock; notes cut to 100 characters (format json for all).",
      "date,time,kind,title,kcal,caffeine mg,items,photo,analysis",
      "2026-03-01,08:15,Coffee,Flat white,110,130,0,no,None",
      "2026-03-01,12:30,Meal,\"Chicken salad, bread\",-,-,0,no,None"
    ].join("\n"))
  })

  it("the profile names today's weekday; an answer without a renderer of its own still reads as a table", () => {
    expect(renderProfile({ userId: "u-1", timezone: "Europe/Berlin", today: "2026-03-02" })).toBe(
      "User u-1; time zone Europe/Berlin; today is 2026-03-02 (Monday)."
    )
    expect(renderGeneric({ from: "2026-03-01", count: 2.25, pairs: [{ a: 1, b: "x, y" }, { a: 2, c: true }] }))
      .toBe(["from: 2026-03-01; count: 2.3", "pairs: 2", "a,b,c", "1,\"x, y\",-", "2,-,true"].join("\n"))
  })
})
