/**
 * The local date and clock of an instant in a time zone, with the formatters kept per zone, and the check of a zone's
 * name, with the names kept once known: the same answers on the second call as on the first, in any letter case, and
 * a name that is no zone still refused after the known ones.
 */
import { describe, expect, it } from "@effect/vitest"
import { isTimeZone } from "@pulsebridge/domain"
import { localDate, localMinuteOfDay, localToday } from "../../src/platform/Calendar.js"

describe("Calendar", () => {
  const instant = new Date("2026-03-29T00:30:00Z")

  it("gives the same local date and clock on every call, across a change of clocks", () => {
    for (let round = 0; round < 3; round++) {
      expect(localDate(instant, "Europe/Berlin")).toBe("2026-03-29")
      expect(localDate(instant, "America/Los_Angeles")).toBe("2026-03-28")
      expect(localDate(instant, "europe/berlin")).toBe("2026-03-29")
      expect(localMinuteOfDay(instant, "Europe/Berlin")).toBe(90)
      // 02:00 became 03:00 at 01:00 UTC
      expect(localMinuteOfDay(new Date("2026-03-29T01:30:00Z"), "Europe/Berlin")).toBe(3 * 60 + 30)
      expect(localMinuteOfDay(instant, "Asia/Kolkata")).toBe(6 * 60)
    }
  })

  it("refuses a zone it does not know, also after a formatter for a known one is kept", () => {
    expect(() => localDate(instant, "Mars/Olympus")).toThrow(RangeError)
    expect(localDate(instant, "Europe/Berlin")).toBe("2026-03-29")
    expect(() => localDate(instant, "Mars/Olympus")).toThrow(RangeError)
    expect(localToday(instant, "Mars/Olympus")).toBe("2026-03-29")
    expect(localMinuteOfDay(instant, "Mars/Olympus")).toBe(30)
  })

  it("knows a zone's name on every call and never keeps a name that is none", () => {
    for (let round = 0; round < 3; round++) {
      expect(isTimeZone("Europe/Berlin")).toBe(true)
      expect(isTimeZone("EUROPE/BERLIN")).toBe(true)
      expect(isTimeZone("UTC")).toBe(true)
      expect(isTimeZone("Mars/Olympus")).toBe(false)
      expect(isTimeZone("")).toBe(false)
      expect(isTimeZone(`Europe/${"x".repeat(64)}`)).toBe(false)
    }
  })
})
