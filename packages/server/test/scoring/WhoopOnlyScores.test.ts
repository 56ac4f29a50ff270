/**
 * Scores from any provider changed how the inputs are gathered (a sleep's own asleep and latency minutes, a
 * recovery's respiratory rate and skin temperature deviation), not the scores of a user whose data is WHOOP's
 * alone: for every persona's WHOOP rows (sleep, recovery, load; no daily activity) the daily scores are exactly
 * those algorithm 1.1 computed, byte for byte, apart from the version they name. The fixture holds, per persona,
 * the number of days scored and the SHA-256 of their JSON (the scores themselves are 3 MB).
 */
import { expect, it } from "@effect/vitest"
import { DailyScore } from "@pulsebridge/domain"
import { personaRows, Personas } from "@pulsebridge/testing/ScoringPersonas"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { dailyScores } from "../../src/scoring/Daily.js"
import { buildScoringInput } from "../../src/scoring/Inputs.js"

const fixture = path.join(__dirname, "fixtures", "whoop-only-scores-1.1.json")

/** Every persona's WHOOP-only daily scores, encoded, without their algorithm version. */
export const whoopOnlyScores = () => {
  const out: Record<string, unknown> = {}
  for (const [name, persona] of Object.entries(Personas)) {
    const rows = { ...personaRows(persona, "2026-01-01", 90), dailyActivity: [] }
    const scores = dailyScores(buildScoringInput(rows, { timezone: "UTC" }), { from: "2026-01-01", to: "2026-03-31" })
    out[name] = scores.map((score) => {
      const encoded = Schema.encodeSync(DailyScore)(score) as any
      const { algorithmVersion: _, ...components } = encoded.components
      return { ...encoded, components }
    })
  }
  return out
}

/** Per persona: the days scored and the SHA-256 of their JSON. */
export const whoopOnlyDigests = () =>
  Object.fromEntries(
    Object.entries(whoopOnlyScores()).map(([name, scores]) => [name, {
      days: (scores as Array<unknown>).length,
      sha256: crypto.createHash("sha256").update(JSON.stringify(scores)).digest("hex")
    }])
  )

it("a WHOOP-only user's daily scores are algorithm 1.1's, byte for byte", () => {
  const expected = JSON.parse(fs.readFileSync(fixture, "utf8"))
  const digests = whoopOnlyDigests()
  expect(Object.values(digests).every((d) => d.days > 40)).toBe(true)
  expect(digests).toEqual(expected)
})
