/**
 * A tool whose service fails on the server's side (its database gone) answers a tool error without the
 * failure's details, and the failure is logged; a failure the service names (a refused range) is told as it is.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { Connections } from "../../src/connections/Connections.js"
import { DataCoverage, RangeAfterToday } from "../../src/coverage/DataCoverage.js"
import { GlucoseSummaries } from "../../src/healthData/GlucoseSummaries.js"
import { HealthData } from "../../src/healthData/HealthData.js"
import { MealComparisons } from "../../src/insights/MealComparisons.js"
import { MealResponses } from "../../src/insights/MealResponses.js"
import { JournalRepo } from "../../src/journal/JournalRepo.js"
import { McpTools } from "../../src/mcp/Tools.js"
import { ScoreData } from "../../src/scoring/ScoreData.js"

const secret = "password authentication failed for user operator at 10.0.0.5"

const unused = <A>() => ({}) as A

const ToolsWithFailingData = McpTools.DefaultWithoutDependencies.pipe(
  Layer.provide([
    Layer.succeed(
      ScoreData,
      ScoreData.make({ daily: () => Effect.die(new Error(secret)), weekly: () => Effect.die(secret) })
    ),
    Layer.succeed(
      DataCoverage,
      DataCoverage.make({ range: () => Effect.fail(new RangeAfterToday({ today: "2026-03-01" })) })
    ),
    Layer.succeed(Connections, unused<Connections>()),
    Layer.succeed(HealthData, unused<HealthData>()),
    Layer.succeed(GlucoseSummaries, unused<GlucoseSummaries>()),
    Layer.succeed(JournalRepo, unused<JournalRepo>()),
    Layer.succeed(MealResponses, unused<MealResponses>()),
    Layer.succeed(MealComparisons, unused<MealComparisons>())
  ])
)

const user = { appId: "app", userId: "user", timezone: "UTC" } as never

describe("McpTools", () => {
  it.effect("a server failure is a tool error without its details, and is logged", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const tools = yield* McpTools
      const answer = yield* tools.find("get_daily_scores")!.call(user, { from: "2026-01-01", to: "2026-01-02" }).pipe(
        Effect.provide(Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ cause, message }) => {
            logged.push(`${String(message)} ${String(cause)}`)
          })
        ))
      )
      expect(answer).toEqual({ _tag: "ToolError", message: "The tool failed on the server's side; try again later" })
      expect(logged.join("\n")).toContain("get_daily_scores")
      expect(logged.join("\n")).toContain(secret)

      const refused = yield* tools.find("get_coverage")!.call(user, { from: "2026-01-01", to: "2026-01-02" })
      expect(refused).toEqual({ _tag: "ToolError", message: "`to` must not be after today (2026-03-01 for this user)" })
    }).pipe(Effect.provide(ToolsWithFailingData)))
})
