/**
 * Withings' time zones: a record's zone name is read in any letter case, as `Intl` reads it, and the formatters kept
 * for the names seen are bounded however many names the responses carry.
 */
import { describe, expect, it } from "@effect/vitest"
import { isKnownZone, keptFormatters, withingsLocalDate, zoneOffsetMinutes } from "../../src/withings/Time.js"

/** The `n`th spelling of `name` in mixed letter case (distinct for every `n` below 2^letters). */
const spelling = (name: string, n: number) => {
  let bit = 0
  return [...name].map((c) => /[a-z]/i.test(c) ? ((n >> bit++) & 1 ? c.toUpperCase() : c.toLowerCase()) : c).join("")
}

describe("Withings time zones", () => {
  it("reads a zone in any letter case, and keeps a bounded number of formatters", () => {
    // 2026-03-29 00:30 UTC: 01:30 in Paris (UTC+1), before the clocks go forward at 01:00 UTC; two hours
    // earlier it is 23:30 the day before there.
    const seconds = Date.UTC(2026, 2, 29, 0, 30) / 1000
    for (let n = 0; n < 1500; n++) {
      const zone = spelling("America/Argentina/Buenos_Aires", n)
      expect(isKnownZone(zone)).toBe(true)
    }
    expect(keptFormatters()).toBeLessThanOrEqual(1024)
    // Past the bound, a zone is still read right: its formatter is made and not kept.
    expect(zoneOffsetMinutes(spelling("Europe/Paris", 5), seconds * 1000)).toBe(60)
    expect(zoneOffsetMinutes(spelling("Europe/Paris", 6), seconds * 1000 + 3600_000)).toBe(120)
    expect(withingsLocalDate(seconds - 2 * 3600, spelling("Europe/Paris", 7))).toBe("2026-03-28")
    expect(isKnownZone("Europe/Atlantis")).toBe(false)
  })
})
