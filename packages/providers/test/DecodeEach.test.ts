import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { decodeEach, decodeEachInSlices, defaultRecordId } from "../src/Shared.js"

const Day = Schema.Struct({ id: Schema.String, steps: Schema.Number, date: Schema.String })

describe("decodeEach", () => {
  it("reads the good records and quarantines each bad one with its raw JSON and the failing field", () => {
    const items = [
      { id: "a", steps: 10, date: "2026-11-01" },
      { id: "b", steps: "many", date: "2026-11-02" },
      { id: 7, date: "2026-11-03" },
      "not a record",
      { id: "c", steps: 30, date: "2026-11-31" }
    ]
    const { quarantined, records } = decodeEach({
      kind: "DailyActivity",
      schema: Day,
      items,
      normalise: (day) => {
        const ms = Date.parse(`${day.date}T00:00:00Z`)
        if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day.date) {
          throw new Error(`impossible date ${day.date}`)
        }
        return { providerRecordId: day.id, steps: day.steps }
      }
    })
    expect(records).toEqual([{ providerRecordId: "a", steps: 10 }])
    expect(quarantined).toEqual([
      {
        kind: "DailyActivity",
        providerRecordId: "b",
        reason: "steps: is malformed",
        rawJson: JSON.stringify(items[1])
      },
      { kind: "DailyActivity", providerRecordId: "7", reason: "id: is malformed", rawJson: JSON.stringify(items[2]) },
      { kind: "DailyActivity", providerRecordId: null, reason: "record: is malformed", rawJson: "\"not a record\"" },
      {
        kind: "DailyActivity",
        providerRecordId: "c",
        reason: "cannot be normalised: impossible date 2026-11-31",
        rawJson: JSON.stringify(items[4])
      }
    ])
  })

  it("names a missing field as missing and never quotes a value", () => {
    const { quarantined } = decodeEach({
      kind: "Sleep",
      schema: Schema.Struct({ id: Schema.String, token: Schema.Number }),
      items: [{ id: "s1", token: "secret-value-123" }, { id: "s2" }],
      normalise: (x) => x
    })
    expect(quarantined.map((q) => q.reason)).toEqual(["token: is malformed", "token: is missing"])
  })

  it("takes the provider id from id, summaryId or recordId", () => {
    expect(defaultRecordId({ summaryId: "x-1" })).toBe("x-1")
    expect(defaultRecordId({ recordId: "r" })).toBe("r")
    expect(defaultRecordId({ id: 12 })).toBe("12")
    expect(defaultRecordId({ id: "" })).toBeNull()
    expect(defaultRecordId(null)).toBeNull()
  })
})

describe("decodeEachInSlices", () => {
  it.live("gives what decodeEach gives, in order, over slices with bad records across their edges", () =>
    Effect.gen(function*() {
      const items = Array.from(
        { length: 23 },
        (_, i) =>
          i % 5 === 4
            ? { id: `x${i}`, steps: "bad", date: "2026-11-01" }
            : { id: `d${i}`, steps: i, date: "2026-11-01" }
      )
      const options = {
        kind: "DailyActivity",
        schema: Day,
        items,
        normalise: (day: typeof Day.Type) => ({ providerRecordId: day.id, steps: day.steps })
      }
      const whole = decodeEach(options)
      expect(whole.quarantined).toHaveLength(4)
      expect(yield* decodeEachInSlices(options, 3)).toEqual(whole)
      expect(yield* decodeEachInSlices(options, 500)).toEqual(whole)
      expect(yield* decodeEachInSlices({ ...options, items: [] }, 3)).toEqual({ records: [], quarantined: [] })
    }))
})
