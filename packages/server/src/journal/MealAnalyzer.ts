/**
 * The swappable meal analyser: from a photo (and its caption) to named, measured items, which the
 * `NutrientResolver` then costs. Three layers, chosen by `ANALYZER`:
 *
 * - `openai`: any OpenAI-compatible chat-completions endpoint with vision, asked for a strict JSON
 *   schema; the answer is validated again here with Schema and clamped to sane ranges.
 * - `offline`: reads the caption (`notes`) against the food table; nothing recognisable is a failure
 *   with its reason, never a guess.
 * - `sandbox`: the `openai` analyser pointed at the simulator this server mounts in sandbox mode.
 *
 * Failures say whether they are transient (network, timeout, 429, 5xx: retried with backoff) or not.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { AnalyzerName, EntryKind } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ServerBases } from "../platform/ServerBases.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import { readCaption } from "./Caption.js"
import type { DetectedItem } from "./NutrientResolver.js"

export class AnalysisFailed extends Data.TaggedError("AnalysisFailed")<{
  readonly reason: string
  readonly transient: boolean
}> {}

export interface AnalysisInput {
  readonly image: Option.Option<{ readonly bytes: Uint8Array; readonly contentType: string }>
  readonly notes: string | null
  readonly entryKind: EntryKind
}

export interface AnalysisOutput {
  readonly items: ReadonlyArray<DetectedItem>
  /** The model that answered, when the analyser names one. */
  readonly model: string | null
}

export interface MealAnalyzerShape {
  readonly name: AnalyzerName
  readonly model: string | null
  readonly analyze: (input: AnalysisInput) => Effect.Effect<AnalysisOutput, AnalysisFailed>
}

export class MealAnalyzer extends Context.Tag("@pulsebridge/server/MealAnalyzer")<MealAnalyzer, MealAnalyzerShape>() {
  /**
   * An analyser for tests that answers its attempts with `answers` in turn (the last one repeats) and counts
   * them in `attempts`.
   */
  static readonly Test = (
    answers: ReadonlyArray<Effect.Effect<AnalysisOutput, AnalysisFailed>>,
    attempts: { count: number } = { count: 0 }
  ): Layer.Layer<MealAnalyzer> =>
    Layer.succeed(MealAnalyzer, {
      name: "offline",
      model: null,
      analyze: () => Effect.suspend(() => answers[Math.min(attempts.count++, answers.length - 1)]!)
    })
}

// ---- offline ----

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

export const offlineAnalyzer: MealAnalyzerShape = {
  name: "offline",
  model: null,
  analyze: (input) =>
    Effect.suspend(() => {
      const caption = input.notes?.trim() ?? ""
      if (caption === "") {
        return Effect.fail(
          new AnalysisFailed({
            reason: "Nothing to analyse: the offline analyser reads the photo's caption (notes), and there is none. " +
              "Add the items with PATCH.",
            transient: false
          })
        )
      }
      const reading = readCaption(caption)
      if (reading.items.length === 0) {
        return Effect.fail(
          new AnalysisFailed({
            reason: `No known food or drink in the caption "${caption.slice(0, 200)}". Add the items with PATCH.`,
            transient: false
          })
        )
      }
      return Effect.succeed({
        items: reading.items.map((item) => ({ ...item, name: capitalise(item.name) })),
        model: null
      })
    })
}

// ---- openai ----

export const units = [
  "g",
  "ml",
  "piece",
  "slice",
  "cup",
  "tbsp",
  "tsp",
  "oz",
  "bowl",
  "plate",
  "serving",
  "can",
  "bottle",
  "glass"
] as const

const nullableNumber = { type: ["number", "null"] }

/** The JSON schema of the answer, in the strict subset (every property required, no extra keys). */
export const answerJsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["isFood", "items", "notes"],
  properties: {
    isFood: { type: "boolean" },
    notes: { type: ["string", "null"] },
    items: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: [
          "name",
          "quantity",
          "unit",
          "estimatedGrams",
          "estimatedVolumeMl",
          "preparation",
          "confidence",
          "nutrients"
        ],
        properties: {
          name: { type: "string" },
          quantity: { type: "number" },
          unit: { type: "string", enum: units },
          estimatedGrams: nullableNumber,
          estimatedVolumeMl: nullableNumber,
          preparation: { type: ["string", "null"] },
          confidence: { type: "number" },
          nutrients: {
            type: "object",
            additionalProperties: false,
            required: ["kcal", "protein_g", "carbs_g", "fat_g", "fiber_g", "sugar_g", "sodium_mg", "caffeine_mg"],
            properties: {
              kcal: nullableNumber,
              protein_g: nullableNumber,
              carbs_g: nullableNumber,
              fat_g: nullableNumber,
              fiber_g: nullableNumber,
              sugar_g: nullableNumber,
              sodium_mg: nullableNumber,
              caffeine_mg: nullableNumber
            }
          }
        }
      }
    }
  }
} as const

const n = Schema.NullOr(Schema.Number.pipe(Schema.finite()))

/** The answer, validated again whatever the backend promised. */
export const MealAnswer = Schema.Struct({
  isFood: Schema.Boolean,
  notes: Schema.NullOr(Schema.String),
  items: Schema.Array(Schema.Struct({
    name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
    quantity: Schema.Number.pipe(Schema.finite(), Schema.nonNegative()),
    unit: Schema.Literal(...units),
    estimatedGrams: n,
    estimatedVolumeMl: n,
    preparation: Schema.NullOr(Schema.String),
    confidence: Schema.Number.pipe(Schema.finite()),
    nutrients: Schema.Struct({
      kcal: n,
      protein_g: n,
      carbs_g: n,
      fat_g: n,
      fiber_g: n,
      sugar_g: n,
      sodium_mg: n,
      caffeine_mg: n
    })
  })).pipe(Schema.maxItems(30))
})
export type MealAnswer = typeof MealAnswer.Type

const ChatCompletion = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.NonEmptyArray(Schema.Struct({
    finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
    message: Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      refusal: Schema.optional(Schema.NullOr(Schema.String))
    })
  }))
})

export const systemPrompt = "You are a dietitian. Identify each distinct food or drink in the photo. Estimate the " +
  "portion in grams (solids) or ml (drinks) using the plate, cutlery or hands for scale. Prefer plain generic names " +
  "(e.g. 'white rice', 'grilled chicken breast'). If unsure, lower the confidence; never invent items that are not " +
  "visible. If the image is not food, set isFood to false and items to []."

const clampOrNull = (x: number | null, high: number) => x === null ? null : Math.min(high, Math.max(0, x))

const toDetected = (answer: MealAnswer): ReadonlyArray<DetectedItem> =>
  answer.items.map((item) => ({
    name: item.name.trim(),
    quantity: Math.min(item.quantity, 10_000),
    unit: item.unit,
    estimatedGrams: clampOrNull(item.estimatedGrams, 3000),
    estimatedVolumeMl: clampOrNull(item.estimatedVolumeMl, 5000),
    confidence: Math.min(1, Math.max(0, item.confidence)),
    modelNutrients: {
      caloriesKcal: clampOrNull(item.nutrients.kcal, 5000),
      proteinGrams: clampOrNull(item.nutrients.protein_g, 1000),
      carbsGrams: clampOrNull(item.nutrients.carbs_g, 1000),
      fatGrams: clampOrNull(item.nutrients.fat_g, 1000),
      fiberGrams: clampOrNull(item.nutrients.fiber_g, 1000),
      sugarGrams: clampOrNull(item.nutrients.sugar_g, 1000),
      sodiumMg: clampOrNull(item.nutrients.sodium_mg, 50_000),
      caffeineMg: clampOrNull(item.nutrients.caffeine_mg, 5000),
      volumeMl: clampOrNull(item.estimatedVolumeMl, 5000)
    }
  }))

const failed = (reason: string, transient = false) => new AnalysisFailed({ reason, transient })

export interface OpenAiOptions {
  readonly name: AnalyzerName
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly timeout?: Duration.DurationInput | undefined
}

/** An analyser over an OpenAI-compatible `POST {baseUrl}/chat/completions`. */
export const makeOpenAiAnalyzer = (options: OpenAiOptions) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
    const analyze = (input: AnalysisInput) =>
      Effect.gen(function*() {
        if (Option.isNone(input.image)) return yield* failed("The entry has no photo to analyse")
        const image = input.image.value
        const hint = input.notes?.trim() ?? ""
        const body = {
          model: options.model,
          temperature: 0,
          max_tokens: 1200,
          messages: [
            { role: "system", content: systemPrompt },
            {
              role: "user",
              content: [
                {
                  type: "text",
                  text: `Entry kind: ${input.entryKind}. User hint (may be empty): ${JSON.stringify(hint)}`
                },
                {
                  type: "image_url",
                  image_url: {
                    url: `data:${image.contentType};base64,${Buffer.from(image.bytes).toString("base64")}`,
                    detail: "low"
                  }
                }
              ]
            }
          ],
          response_format: {
            type: "json_schema",
            json_schema: { name: "meal_analysis", strict: true, schema: answerJsonSchema }
          }
        }
        let request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyUnsafeJson(body)
        )
        if (Option.isSome(options.apiKey)) {
          request = HttpClientRequest.bearerToken(request, Redacted.value(options.apiKey.value))
        }
        const response = yield* http.execute(request).pipe(
          Effect.timeoutFail({
            duration: options.timeout ?? Duration.seconds(60),
            onTimeout: () => failed("The analyser did not answer in time", true)
          }),
          Effect.catchTags({
            RequestError: (e) => Effect.fail(failed(`The analyser could not be reached (${e.reason})`, true)),
            ResponseError: (e) => Effect.fail(failed(`The analyser's answer could not be read (${e.reason})`, true))
          })
        )
        if (response.status === 429 || response.status >= 500) {
          return yield* failed(`The analyser answered ${response.status}`, true)
        }
        if (response.status >= 400) {
          return yield* failed(`The analyser refused the request (${response.status})`)
        }
        const text = yield* response.text.pipe(
          Effect.catchAll(() => Effect.fail(failed("The analyser's answer could not be read", true)))
        )
        const completion = yield* Effect.try(() => JSON.parse(text)).pipe(
          Effect.flatMap(Schema.decodeUnknown(ChatCompletion)),
          Effect.mapError(() => failed("The analyser's answer is not a chat completion"))
        )
        const choice = completion.choices[0]
        if (choice.message.refusal !== undefined && choice.message.refusal !== null) {
          return yield* failed(`The model refused: ${choice.message.refusal.slice(0, 300)}`)
        }
        if (choice.finish_reason === "length") return yield* failed("The model's answer was cut off")
        const answer = yield* Effect.try(() => JSON.parse(choice.message.content ?? "")).pipe(
          Effect.flatMap(Schema.decodeUnknown(MealAnswer)),
          Effect.mapError(() => failed("The model's answer did not match the expected JSON schema"))
        )
        if (!answer.isFood) return yield* failed("No food or drink was recognised in the photo")
        if (answer.items.length === 0) return yield* failed("The model recognised no items in the photo")
        return { items: toDetected(answer), model: completion.model ?? options.model }
      }).pipe(Effect.scoped)
    return { name: options.name, model: options.model, analyze } satisfies MealAnalyzerShape
  })

/** Where the sandbox analyser lives on this server. */
export const sandboxAnalyzerPath = "/sandbox/analyzer"
export const sandboxAnalyzerModel = "pulsebridge-sandbox-vision"

export const OfflineAnalyzerLive = Layer.succeed(MealAnalyzer, offlineAnalyzer)

/** The analyser `ANALYZER` names. */
export const MealAnalyzerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  switch (config.analyzer) {
    case "offline":
      return OfflineAnalyzerLive
    case "openai":
      return Layer.effect(
        MealAnalyzer,
        makeOpenAiAnalyzer({
          name: "openai",
          baseUrl: config.analyzerBaseUrl,
          model: config.analyzerModel,
          apiKey: config.analyzerApiKey
        })
      )
    case "sandbox":
      return Layer.effect(
        MealAnalyzer,
        Effect.flatMap(ServerBases, (bases) =>
          makeOpenAiAnalyzer({
            name: "sandbox",
            baseUrl: `${bases.internalBase}${sandboxAnalyzerPath}/v1`,
            model: sandboxAnalyzerModel,
            apiKey: Option.some(Redacted.make("sandbox"))
          }))
      )
  }
}))
