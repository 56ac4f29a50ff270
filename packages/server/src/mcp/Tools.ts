/**
 * The MCP server's tools: read-only views of one user's data for an AI assistant, over the services and
 * repositories of the REST API's reads (the glucose summary over one of its own), so the two never disagree. Each tool declares its input and
 * output as JSON Schema made from the domain's schemas; its arguments are decoded with those schemas
 * (a bad argument is a tool error the assistant can read and correct, never a protocol failure), and
 * every answer is bounded: range tools take at most `McpMaxDays` days and cut an answer over
 * `McpMaxAnswerChars` at a day boundary (`Bound.ts`). Glucose is served as summaries, never raw readings.
 *
 * An answer carries the full typed data as structured content, and as text a compact rendering made for a
 * language model (`Render*.ts`: a summary, then a table, numbers rounded to what they mean), or the same JSON when
 * the call asks `format: "json"`.
 */
import type { CurrentUser, McpAnswerFormat } from "@pulsebridge/domain"
import {
  BodyMeasurement,
  Connection,
  Coverage,
  DailyActivitySummary,
  DailyLoadSummary,
  DailyScore,
  GlucoseSummary,
  JournalEntrySummary,
  LastWeeklyDate,
  McpMaxAnswerChars,
  McpMaxDays,
  McpNoInput,
  McpProfile,
  McpProviderRange,
  McpRange,
  mcpRangeFields,
  MealResponse,
  Recovery,
  SleepSession,
  WeeklyScore,
  Workout
} from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Connections } from "../connections/Connections.js"
import { DataCoverage } from "../coverage/DataCoverage.js"
import { localClock } from "../coverage/DayCoverage.js"
import { GlucoseSummaries } from "../healthData/GlucoseSummaries.js"
import { HealthData } from "../healthData/HealthData.js"
import { MealResponses } from "../insights/MealResponses.js"
import { JournalRepo } from "../journal/JournalRepo.js"
import { toSummary } from "../journal/Rows.js"
import { ScoreData } from "../scoring/ScoreData.js"
import { boundByDay } from "./Bound.js"
import { formatNote } from "./Compact.js"
import { compareMealsTool } from "./CompareMealsTool.js"
import {
  renderActivity,
  renderBody,
  renderGlucose,
  renderLoad,
  renderRecovery,
  renderSleep,
  renderWorkouts
} from "./RenderHealth.js"
import {
  renderConnections,
  renderCoverage,
  renderDailyScores,
  renderGeneric,
  renderJournal,
  renderMealResponses,
  renderProfile,
  renderWeeklyScores
} from "./RenderOther.js"

/** The user the tools read: the one the token (HTTP) or `--user-token` (stdio) names. */
export type McpUser = typeof CurrentUser.Service

/** A JSON Schema object, as a tool listing carries it. */
export type JsonObjectSchema = { readonly type: "object" } & Record<string, unknown>

/** What a tool call answers: the JSON as structured content and its text (compact or JSON), or a readable error. */
export type ToolAnswer =
  | { readonly _tag: "Answer"; readonly json: Record<string, unknown>; readonly text: string }
  | { readonly _tag: "ToolError"; readonly message: string }

export interface McpTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonObjectSchema
  readonly outputSchema: JsonObjectSchema
  readonly call: (user: McpUser, args: unknown) => Effect.Effect<ToolAnswer>
}

/** A schema's JSON Schema without its `$schema` line (the listing is not a schema document). */
const jsonSchemaOf = (schema: Schema.Schema.Any): JsonObjectSchema => {
  const { $schema: _, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return { ...rest, type: "object" }
}

/** A decoding failure in a line per problem: `to: the range may cover at most 31 days`. */
const argumentError = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ` : "") + issue.message)
    .join("; ")

const toolError = (message: string): ToolAnswer => ({ _tag: "ToolError", message })

interface Definition<I extends { readonly format?: McpAnswerFormat | undefined }, IE, O, OE, E> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: Schema.Schema<I, IE>
  readonly output: Schema.Schema<O, OE>
  /** The answer, or a failure whose message the assistant may read (a range after today, an unknown provider). */
  readonly run: (user: McpUser, input: I) => Effect.Effect<O, E>
  /** Cuts an encoded answer to its bound. */
  readonly bound: (encoded: OE) => OE
  /** The compact text of a bounded answer (without one, `renderGeneric`'s summary and tables). */
  readonly render?: (encoded: OE) => string
}

const define = <
  I extends { readonly format?: McpAnswerFormat | undefined },
  IE,
  O,
  OE,
  E extends { readonly message: string }
>(
  definition: Definition<I, IE, O, OE, E>
): McpTool => {
  const decode = Schema.decodeUnknownEither(definition.input, { onExcessProperty: "error" })
  const encode = Schema.encodeSync(definition.output)
  const render = definition.render ?? ((encoded: OE) => renderGeneric(encoded as Record<string, unknown>))
  // A rendering that fails is logged and the answer given as JSON text: the data is there, only its text failed.
  const textOf = (json: OE, format: McpAnswerFormat | undefined) =>
    format === "json"
      ? Effect.succeed(JSON.stringify(json))
      : Effect.try(() => render(json)).pipe(
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logError(`The MCP tool ${definition.name} could not render its answer`, error),
            JSON.stringify(json)
          )
        )
      )
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: jsonSchemaOf(definition.input),
    outputSchema: jsonSchemaOf(definition.output),
    call: (user, args) =>
      Either.match(decode(args ?? {}), {
        onLeft: (error) => Effect.succeed(toolError(`Invalid arguments: ${argumentError(error)}`)),
        onRight: (input) =>
          definition.run(user, input).pipe(
            Effect.flatMap((answer) => {
              const json = definition.bound(encode(answer))
              return Effect.map(textOf(json, input.format), (text): ToolAnswer => ({
                _tag: "Answer",
                json: json as Record<string, unknown>,
                text
              }))
            }),
            Effect.catchAll((error) => Effect.succeed(toolError(error.message))),
            // A failure of the server (its database) is logged here and told without its details, as a 500 is.
            Effect.catchAllDefect((defect) =>
              Effect.as(
                Effect.logError(`The MCP tool ${definition.name} failed`, defect),
                toolError("The tool failed on the server's side; try again later")
              )
            )
          )
      })
  }
}

/** The output of a range tool: its own fields, its list `key` of `item`, and the bound's fields. */
const rangeOutput = <K extends string, I, IE>(key: K, item: Schema.Schema<I, IE>) =>
  Schema.Struct({
    ...mcpRangeFields,
    ...({ [key]: Schema.Array(item) } as { readonly [k in K]: Schema.Array$<Schema.Schema<I, IE>> })
  })

/** A bound that cuts the list `key` by its items' `dateKey`. */
const byDay = <K extends string, D extends string>(key: K, dateKey: D) => <OE>(encoded: OE): OE =>
  boundByDay(
    encoded as Record<K, ReadonlyArray<Record<D, string>>>,
    key,
    (item) => (item as Record<D, string>)[dateKey],
    McpMaxAnswerChars
  ) as OE

const unbounded = <OE>(encoded: OE) => encoded

/** The fields of a range answer before its bound: the range, whole. */
const whole = (from: string, to: string) => ({ from, to, continueFrom: null, partialDay: null })

const noFailure = <A>(effect: Effect.Effect<A>) => effect as Effect.Effect<A, { readonly message: string }>

const rangeNote = (days: number) =>
  ` Takes \`from\` and \`to\` (YYYY-MM-DD, inclusive), at most ${days} days; a long answer is cut at a day ` +
  "boundary and says in `continueFrom` (and its text, CUT) where to call again." + formatNote

export class McpTools extends Effect.Service<McpTools>()("@pulsebridge/server/McpTools", {
  effect: Effect.gen(function*() {
    const connections = yield* Connections
    const health = yield* HealthData
    const glucose = yield* GlucoseSummaries
    const journal = yield* JournalRepo
    const mealResponses = yield* MealResponses
    const scores = yield* ScoreData
    const coverage = yield* DataCoverage

    const byDate = <A extends { readonly date: string }>(a: A, b: A) => a.date < b.date ? -1 : a.date > b.date ? 1 : 0

    const tools: ReadonlyArray<McpTool> = [
      define({
        name: "get_profile",
        title: "Profile",
        description: "The user's id, time zone and today's date in that time zone. Call it first to know which " +
          "dates are 'today' or 'last week' for the user." + formatNote,
        input: McpNoInput,
        output: Schema.Struct(McpProfile.fields),
        run: (user) =>
          noFailure(Effect.map(Clock.currentTimeMillis, (now) => ({
            userId: user.userId,
            timezone: user.timezone,
            today: localClock(now, user.timezone).today
          }))),
        bound: unbounded,
        render: renderProfile
      }),
      define({
        name: "list_connections",
        title: "Connections",
        description: "The user's wearable and glucose-monitor connections, one per provider: status, when each " +
          "last synced, whether a backfill runs, and why one needs the user to reconnect." + formatNote,
        input: McpNoInput,
        output: Schema.Struct({ connections: Schema.Array(Connection) }),
        run: (user) => noFailure(Effect.map(connections.listOpen(user.userId), (list) => ({ connections: list }))),
        bound: unbounded,
        render: renderConnections
      }),
      define({
        name: "get_daily_activity",
        title: "Daily activity",
        description: "Daily activity summaries per provider: steps, calories out (kcal), distance (m), active " +
          "and sedentary minutes, floors." + rangeNote(McpMaxDays.daily),
        input: McpProviderRange(McpMaxDays.daily),
        output: rangeOutput("days", DailyActivitySummary),
        run: (user, { from, provider, to }) =>
          Effect.map(
            health.activityRange(user.userId, { from, to, provider }),
            (days) => ({ ...whole(from, to), days })
          ),
        bound: byDay("days", "date"),
        render: renderActivity
      }),
      define({
        name: "get_daily_load",
        title: "Daily load",
        description:
          "Daily load (strain) per provider: the load score on its provider's scale (e.g. WHOOP strain 0-21), energy " +
          "(kcal), average and maximum heart rate, time in heart-rate zones." + rangeNote(McpMaxDays.daily),
        input: McpProviderRange(McpMaxDays.daily),
        output: rangeOutput("days", DailyLoadSummary),
        run: (user, { from, provider, to }) =>
          Effect.map(health.loadRange(user.userId, { from, to, provider }), (days) => ({ ...whole(from, to), days })),
        bound: byDay("days", "date"),
        render: renderLoad
      }),
      define({
        name: "get_sleep",
        title: "Sleep",
        description: "Sleep sessions and naps per provider, dated by the day the user woke into: start and end " +
          "(UTC, with the user's offset), time in bed and asleep, light/deep/REM/awake minutes, efficiency, " +
          "latency, the night's heart rate, HRV, breathing rate and SpO2, and the provider's own sleep score " +
          "on its named scale. null: the provider does not report it." + rangeNote(McpMaxDays.daily),
        input: McpProviderRange(McpMaxDays.daily),
        output: rangeOutput("sleep", SleepSession),
        run: (user, { from, provider, to }) =>
          Effect.map(
            health.sleepRange(user.userId, { from, to, provider }),
            (sleep) => ({ ...whole(from, to), sleep })
          ),
        bound: byDay("sleep", "date"),
        render: renderSleep
      }),
      define({
        name: "get_workouts",
        title: "Workouts",
        description: "Workouts per provider, dated by the local day they started: activity type (running, " +
          "cycling, walking, ...) and the provider's own name, duration (minutes), active energy (kcal), " +
          "distance (m), steps, average and maximum heart rate, time in heart-rate zones, and the provider's " +
          "load score (e.g. WHOOP strain 0-21)." + rangeNote(McpMaxDays.daily),
        input: McpProviderRange(McpMaxDays.daily),
        output: rangeOutput("workouts", Workout),
        run: (user, { from, provider, to }) =>
          Effect.map(
            health.workoutsRange(user.userId, { from, to, provider }),
            (workouts) => ({ ...whole(from, to), workouts })
          ),
        bound: byDay("workouts", "date"),
        render: renderWorkouts
      }),
      define({
        name: "get_recovery",
        title: "Recovery",
        description: "Daily recovery per provider: resting heart rate, HRV (RMSSD, ms), SpO2, breathing rate, " +
          "skin temperature (or its deviation from the user's baseline, °C), and the provider's own recovery " +
          "or readiness score on its named scale." + rangeNote(McpMaxDays.daily),
        input: McpProviderRange(McpMaxDays.daily),
        output: rangeOutput("days", Recovery),
        run: (user, { from, provider, to }) =>
          Effect.map(
            health.recoveryRange(user.userId, { from, to, provider }),
            (days) => ({ ...whole(from, to), days })
          ),
        bound: byDay("days", "date"),
        render: renderRecovery
      }),
      define({
        name: "get_body",
        title: "Body measurements",
        description: "Body measurements per provider: weight (kg), height (m), body fat (%), BMI and lean mass " +
          "(kg) as the provider reports them, with when each was measured." + rangeNote(McpMaxDays.daily),
        input: McpProviderRange(McpMaxDays.daily),
        output: rangeOutput("measurements", BodyMeasurement),
        run: (user, { from, provider, to }) =>
          Effect.map(
            health.bodyRange(user.userId, { from, to, provider }),
            (measurements) => ({ ...whole(from, to), measurements })
          ),
        bound: byDay("measurements", "date"),
        render: renderBody
      }),
      define({
        name: "get_glucose_summary",
        title: "Glucose summary",
        description: "Continuous glucose as summaries, never raw readings: per connection over the range and per " +
          "day, the mean, standard deviation, coefficient of variation, minimum and maximum (mg/dL), the glucose " +
          "management indicator and time in ranges (below 54, 54-69, 70-180, 181-250, above 250 mg/dL)." +
          rangeNote(McpMaxDays.daily),
        input: McpRange(McpMaxDays.daily),
        output: Schema.Struct(GlucoseSummary.fields),
        run: (user, { from, to }) => noFailure(glucose.range(user.userId, from, to)),
        bound: byDay("days", "date"),
        render: renderGlucose
      }),
      define({
        name: "list_journal_entries",
        title: "Nutrition journal",
        description: "The user's nutrition journal by journal date: meals, drinks, water and coffee with title, " +
          "time, nutrients (energy, macronutrients, caffeine) and the state of a photo's analysis." +
          rangeNote(McpMaxDays.detailed),
        input: McpRange(McpMaxDays.detailed),
        output: rangeOutput("entries", JournalEntrySummary),
        run: (user, { from, to }) =>
          noFailure(Effect.map(journal.listByRange(user.userId, from, to), (rows) => ({
            ...whole(from, to),
            // By journal date, so that the answer can be cut at a date; by time within a date.
            entries: rows.map(toSummary).sort((a, b) =>
              a.journalDate < b.journalDate ? -1 : a.journalDate > b.journalDate ? 1 : 0
            )
          }))),
        bound: byDay("entries", "journalDate"),
        render: renderJournal
      }),
      define({
        name: "get_meal_responses",
        title: "Glucose responses to meals",
        description: "For each meal, drink and coffee of the journal with glucose data around it: baseline, peak, " +
          "rise, time to peak, incremental area under the curve over 2 h and time back to baseline, or why it " +
          "cannot be computed." + rangeNote(McpMaxDays.detailed),
        input: McpRange(McpMaxDays.detailed),
        output: rangeOutput("responses", MealResponse),
        run: (user, { from, to }) =>
          noFailure(Effect.map(mealResponses.range(user.userId, from, to), (responses) => ({
            ...whole(from, to),
            responses
          }))),
        bound: byDay("responses", "journalDate"),
        render: renderMealResponses
      }),
      define(yield* compareMealsTool),
      define({
        name: "get_daily_scores",
        title: "Daily scores",
        description: "Daily sleep, activity, recovery and overall scores (0-100, null without enough data) with " +
          "their explanation: each factor's value, baseline, points and weight, and each pillar's part in the " +
          "overall score. Oldest day first." + rangeNote(McpMaxDays.daily),
        input: McpRange(McpMaxDays.daily),
        output: rangeOutput("days", DailyScore),
        run: (user, { from, to }) =>
          noFailure(Effect.map(scores.daily(user.userId, { from, to }), (days) => ({
            ...whole(from, to),
            days: [...days].sort(byDate)
          }))),
        bound: byDay("days", "date"),
        render: renderDailyScores
      }),
      define({
        name: "get_weekly_scores",
        title: "Weekly scores",
        description: "Weekly (ISO week, Monday first) means of the daily scores, oldest week first." +
          rangeNote(McpMaxDays.weekly),
        input: McpRange(McpMaxDays.weekly, { lastDate: LastWeeklyDate }),
        output: rangeOutput("weeks", WeeklyScore),
        run: (user, { from, to }) =>
          noFailure(Effect.map(scores.weekly(user.userId, { from, to }), (weeks) => ({
            ...whole(from, to),
            weeks: [...weeks].sort((a, b) => a.weekStartDate < b.weekStartDate ? -1 : 1)
          }))),
        bound: byDay("weeks", "weekStartDate"),
        render: renderWeeklyScores
      }),
      define({
        name: "get_coverage",
        title: "Data coverage",
        description: "Per day and data type (daily activity, daily load, sleep, recovery, glucose, journal): the " +
          "provider that supplies it and whether it is complete, partial, missing or pending, and why each null " +
          "score is null. `to` may not be after the user's today." + rangeNote(McpMaxDays.detailed),
        input: McpRange(McpMaxDays.detailed),
        output: Schema.Struct({ ...Coverage.fields, ...mcpRangeFields }),
        run: (user, { from, to }) =>
          Effect.map(coverage.range(user.userId, from, to), (answer) => ({
            ...answer,
            continueFrom: null,
            partialDay: null
          })),
        bound: byDay("days", "date"),
        render: renderCoverage
      })
    ]

    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    /** The tools as `tools/list` answers them, made once: every tool only reads. */
    const listing = tools.map(({ call: _, ...tool }) => ({
      ...tool,
      annotations: {
        title: tool.title,
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false
      }
    }))
    return { tools, listing, find: (name: string) => byName.get(name) } as const
  }),
  dependencies: [JournalRepo.Default, GlucoseSummaries.Default]
}) {}
