/**
 * The size bound of a tool answer, pure: an answer within the bound is whole; over it, the pages an assistant
 * gets by following `continueFrom` are each within the bound and together hold every item exactly once, except
 * the part of a day too large for any answer, which `partialDay` reports.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { boundByDay } from "../../src/mcp/Bound.js"

interface Item {
  readonly date: string
  readonly text: string
}

const answerOf = (items: ReadonlyArray<Item>) => ({ from: "2026-01-01", to: "2026-01-31", items })

/** Follows `continueFrom` as an assistant would: the items from that date on, answered again. */
const pages = (items: ReadonlyArray<Item>, max: number) => {
  const out: Array<ReturnType<typeof boundByDay<ReturnType<typeof answerOf>, "items">>> = []
  let rest = items
  for (;;) {
    const page = boundByDay(answerOf(rest), "items", (item) => item.date, max)
    out.push(page)
    if (page.continueFrom === null) return out
    const next = page.continueFrom
    rest = rest.filter((item) => item.date >= next)
  }
}

const day = (n: number) => `2026-01-${String(n).padStart(2, "0")}`

describe("boundByDay", () => {
  it("answers a small answer whole, with null bound fields", () => {
    const items = [{ date: day(1), text: "a" }, { date: day(2), text: "b" }]
    expect(boundByDay(answerOf(items), "items", (i) => i.date, 10_000)).toEqual({
      ...answerOf(items),
      continueFrom: null,
      partialDay: null
    })
  })

  it("cuts between days, never inside one that fits", () => {
    const items = [1, 1, 2, 2, 3, 3].map((d, i) => ({ date: day(d), text: "x".repeat(100) + i }))
    const whole = JSON.stringify({ ...answerOf(items), continueFrom: null, partialDay: null }).length
    const page = boundByDay(answerOf(items), "items", (i) => i.date, whole - 50)
    expect(page.items.map((i) => i.date)).toEqual([day(1), day(1), day(2), day(2)])
    expect(page.continueFrom).toBe(day(3))
    expect(page.partialDay).toBeNull()
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(whole - 50)
  })

  it("reports the part of a day too large for any answer and continues after it", () => {
    const items = [
      ...Array.from({ length: 10 }, (_, i) => ({ date: day(1), text: "y".repeat(200) + i })),
      { date: day(4), text: "z" }
    ]
    const page = boundByDay(answerOf(items), "items", (i) => i.date, 1_000)
    expect(page.partialDay).toEqual({ date: day(1), shown: page.items.length, total: 10 })
    expect(page.items.length).toBeGreaterThan(0)
    expect(page.items.length).toBeLessThan(10)
    expect(page.continueFrom).toBe(day(4))
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(1_000)
  })

  it("pages within the bound hold every item once, in order, but for reported partial days", () => {
    const arbitraryItems = fc.array(
      fc.record({ date: fc.integer({ min: 1, max: 28 }).map(day), text: fc.string({ maxLength: 300 }) }),
      { maxLength: 80 }
    ).map((items) => [...items].sort((a, b) => a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
    fc.assert(
      fc.property(arbitraryItems, fc.integer({ min: 400, max: 6_000 }), (items, max) => {
        const answered = pages(items, max)
        const seen = answered.flatMap((page) => page.items)
        const left = answered.flatMap((page) => page.partialDay === null ? [] : [page.partialDay])
        for (const page of answered) {
          expect(JSON.stringify(page).length).toBeLessThanOrEqual(max)
          if (page.continueFrom !== null && page.items.length > 0) {
            expect(page.continueFrom > page.items.at(-1)!.date).toBe(true)
          }
        }
        // Every item is answered once and in order, except those a partial day left out.
        const expected = items.filter((item, index) => {
          const partial = left.find((p) => p.date === item.date)
          if (partial === undefined) return true
          const rank = items.slice(0, index).filter((other) => other.date === item.date).length
          return rank < partial.shown
        })
        expect(seen).toEqual(expected)
        for (const p of left) expect(p.total).toBe(items.filter((item) => item.date === p.date).length)
      }),
      { numRuns: 300 }
    )
  })
})
