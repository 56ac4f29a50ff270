/**
 * The size bound of `compare_meals`: an answer within the bound is as it is; one over it keeps its first groups
 * (the largest) that fit, says how many it left out, and is itself within the bound.
 */
import { describe, expect, it } from "@effect/vitest"
import { boundGroups } from "../../src/mcp/CompareMealsTool.js"

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
