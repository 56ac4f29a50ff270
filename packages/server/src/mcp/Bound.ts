/**
 * The size bound of a tool answer: an answer whose JSON exceeds the bound keeps the whole days that fit and
 * says where to continue (`continueFrom`, the first day left out). A single day too large for any answer
 * (thousands of journal entries on one date) keeps the items that fit and says how many it left out
 * (`partialDay`); the answer then continues from the day after.
 */

export interface PartialDay {
  readonly date: string
  readonly shown: number
  readonly total: number
}

/** The envelope fields a bounded answer adds. */
export interface BoundFields {
  readonly continueFrom: string | null
  readonly partialDay: PartialDay | null
}

/** The longest the envelope fields can be, reserved whenever an answer is cut. */
const reserve = JSON.stringify({
  continueFrom: "9999-12-31",
  partialDay: { date: "9999-12-31", shown: Number.MAX_SAFE_INTEGER, total: Number.MAX_SAFE_INTEGER }
}).length

/**
 * `answer` with at most `maxChars` characters of JSON: its list `key` (sorted by `dateOf`) cut at a day
 * boundary when the whole does not fit.
 */
export const boundByDay = <A extends Record<string, unknown>, K extends keyof A & string>(
  answer: A,
  key: K,
  dateOf: (item: A[K] extends ReadonlyArray<infer I> ? I : never) => string,
  maxChars: number
): A & BoundFields => {
  const whole = { ...answer, continueFrom: null, partialDay: null }
  if (JSON.stringify(whole).length <= maxChars) return whole
  const items = answer[key] as unknown as ReadonlyArray<A[K] extends ReadonlyArray<infer I> ? I : never>
  // An item costs its JSON and a comma; the envelope with an empty list and the longest bound fields is fixed.
  let used = JSON.stringify({ ...answer, [key]: [] }).length + reserve
  let kept = 0
  let partialDay: PartialDay | null = null
  let continueFrom: string | null = null
  let start = 0
  while (start < items.length) {
    const date = dateOf(items[start]!)
    let end = start
    let size = 0
    while (end < items.length && dateOf(items[end]!) === date) {
      size += JSON.stringify(items[end]).length + 1
      end++
    }
    if (used + size <= maxChars) {
      used += size
      kept = end
      start = end
      continue
    }
    if (kept === 0) {
      // The first day alone is over the bound: as many of its items as fit, and the rest of the range after it.
      let shown = 0
      while (shown < end && used + JSON.stringify(items[shown]).length + 1 <= maxChars) {
        used += JSON.stringify(items[shown]).length + 1
        shown++
      }
      kept = shown
      partialDay = { date, shown, total: end }
      continueFrom = end < items.length ? dateOf(items[end]!) : null
    } else {
      continueFrom = date
    }
    break
  }
  return { ...answer, [key]: items.slice(0, kept), continueFrom, partialDay }
}
