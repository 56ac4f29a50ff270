/**
 * The size bound of `compare_meals`: an answer within the bound is as it is; one over it keeps its first groups
 * (the largest) that fit, says how many it left out, and is itself within the bound; and its compact text.
 */
import { describe, expect, it } from "@effect/vitest"
import { boundGroups, renderCompareMeals } from "../../src/mcp/CompareMealsTool.js"

const stat = { mean: 50, sd: 10, min: 40, max: 60 }
const group = (i: number) => ({
  key: `food ${i}`,
  label: `Food ${i}`,
  n: 100 - i,
  movingBaselineMeals: 0,
  carbsKnown: 0,
  riseMgDl: stat,
  iauc2hMgDlMin: stat,
  change1hMgDl: stat,
  change2hMgDl: stat,
  minutesAbove140: stat,
  timeToPeakMinutes: stat,
  carbsGrams: null,
  risePer10gCarbs: null,
  iaucPer10gCarbs: null,
  meals: []
})
const answer = (groups: number) => ({
  from: "2026-03-01",
  to: "2026-03-31",
  minGroupSize: 2,
  unit: "mg/dL" as const,
  aboveMgDl: 140,
  movingBaselineMgDlPerMin: 1,
  entries: 300,
  completeResponses: 200,
  inGroups: 150,
  groups: Array.from({ length: groups }, (_, i) => group(i)),
  groupsLeftOut: 0
})

describe("compare_meals' size bound", () => {
  it("keeps the first groups that fit and counts the others", () => {
    const whole = answer(40)
    const size = JSON.stringify(whole).length
    expect(boundGroups(size)(whole)).toBe(whole)
    const max = Math.floor(size / 2)
    const cut = boundGroups(max)(whole)
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(max)
    expect(cut.groups.length).toBeGreaterThan(10)
    expect(cut.groups.length + cut.groupsLeftOut).toBe(40)
    expect(cut.groups).toEqual(whole.groups.slice(0, cut.groups.length))
    // one more group would not have fitted
    expect(JSON.stringify({ ...cut, groups: whole.groups.slice(0, cut.groups.length + 1) }).length)
      .toBeGreaterThan(max)
    // a bound below one group: none kept, all counted
    expect(boundGroups(400)(whole)).toMatchObject({ groups: [], groupsLeftOut: 40 })
  })
})

describe("compare_meals' compact text", () => {
  it("says what was compared, then a line per group (mean ±SD (lowest..highest)) and a line per meal", () => {
    const meal = (day: number, rise: number, inStatistics: boolean) => ({
      entryId: `00000000-0000-4000-8000-00000000000${day}`,
      entryKind: "Meal" as const,
      title: "Oatmeal, banana",
      consumedAtUtc: `2026-03-0${day}T08:00:00.000Z`,
      journalDate: `2026-03-0${day}`,
      carbsGrams: 45,
      inStatistics,
      movingBaseline: !inStatistics,
      baselineMgDl: 92.4,
      baselineSlopeMgDlPerMin: inStatistics ? 0.1 : 1.6,
      riseMgDl: rise,
      iauc2hMgDlMin: 2100.4,
      change1hMgDl: 30.6,
      change2hMgDl: 4.2,
      minutesAbove140: 0,
      timeToPeakMinutes: 45,
      risePer10gCarbs: rise / 4.5,
      iaucPer10gCarbs: 466.8,
      flags: []
    })
    const one = answer(1)
    const text = renderCompareMeals({
      ...one,
      entries: 3,
      completeResponses: 3,
      inGroups: 2,
      groups: [{
        ...one.groups[0]!,
        label: "Oatmeal, banana",
        n: 2,
        movingBaselineMeals: 1,
        carbsKnown: 2,
        riseMgDl: { mean: 41.5, sd: 4.95, min: 38, max: 45 },
        carbsGrams: { mean: 45, sd: 0, min: 45, max: 45 },
        risePer10gCarbs: { mean: 9.22, sd: 1.1, min: 8.44, max: 10 },
        meals: [meal(1, 38, true), meal(2, 45, true), meal(3, 70, false)]
      }]
    })
    const lines = text.split("\n")
    expect(lines[0]).toBe(
      "Meals compared, 2026-03-01 to 2026-03-31 (31 days): 3 meals, drinks and coffees, 3 with a complete glucose " +
        "response; 1 group of at least 2 (2 meals in their figures)."
    )
    expect(lines[2]).toBe(
      "group,n,moving baseline,rise,change 1h,change 2h,min above 140,iAUC 2h,carbs g,rise per 10 g"
    )
    expect(lines[3]).toBe(
      "\"Oatmeal, banana\",2,1,42 ±5 (38..45),50 ±10 (40..60),50 ±10 (40..60),50 ±10 (40..60),50 ±10 (40..60)," +
        "45 ±0 (45..45),9.2 ±1.1 (8.4..10)"
    )
    expect(lines[4]).toBe("Meals:")
    expect(lines[6]).toBe("\"Oatmeal, banana\",2026-03-01,\"Oatmeal, banana\",45,92,38,31,4,0,yes")
    expect(lines[8]).toBe("\"Oatmeal, banana\",2026-03-03,\"Oatmeal, banana\",45,92,70,31,4,0,no (moving baseline)")
    expect(lines).toHaveLength(9)
  })
})
