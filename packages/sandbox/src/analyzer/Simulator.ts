/**
 * The meal-analyser simulator: an OpenAI-compatible `POST /v1/chat/completions` that answers a
 * vision request with a strict-schema meal analysis, deterministic per image (the SHA-256 of the
 * image picks one of a fixed set of meals). It is the `sandbox` analyser of `npm start` and of the
 * tests. Faults make the next answers misbehave, programmatically or under `/_sim/...`:
 * `rateLimit` (429), `serverError` (503), `malformedJson` (an answer that is not JSON), `notFood`
 * (isFood false) and `hold` (the answer waits until `/_sim/release`).
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"

export type AnalyzerFaultKind = "rateLimit" | "serverError" | "malformedJson" | "notFood" | "hold"

export interface AnalyzerFault {
  readonly kind: AnalyzerFaultKind
  /** How many answers it affects (default 1). */
  readonly count?: number | undefined
}

export interface AnalyzerCall {
  readonly seq: number
  readonly status: number
  readonly imageSha256: string | null
  readonly model: string | null
  readonly fault: AnalyzerFaultKind | null
}

interface SimItem {
  readonly name: string
  readonly quantity: number
  readonly unit: string
  readonly grams: number | null
  readonly ml: number | null
  readonly confidence: number
  /** The model's own estimate (kcal, protein, carbs, fat); only foods outside the table need it. */
  readonly estimate?: readonly [number, number, number, number]
}

/** The meals the simulator "sees"; which one depends on the image only. */
export const sandboxMeals: ReadonlyArray<ReadonlyArray<SimItem>> = [
  [
    { name: "Grilled chicken breast", quantity: 150, unit: "g", grams: 150, ml: null, confidence: 0.92 },
    { name: "White rice", quantity: 1, unit: "cup", grams: 180, ml: null, confidence: 0.88 },
    { name: "Broccoli", quantity: 90, unit: "g", grams: 90, ml: null, confidence: 0.9 }
  ],
  [
    { name: "Scrambled eggs", quantity: 2, unit: "piece", grams: 120, ml: null, confidence: 0.9 },
    { name: "Toast", quantity: 2, unit: "slice", grams: 44, ml: null, confidence: 0.86 },
    { name: "Orange juice", quantity: 250, unit: "ml", grams: null, ml: 250, confidence: 0.8 }
  ],
  [
    { name: "Salmon fillet", quantity: 1, unit: "piece", grams: 150, ml: null, confidence: 0.89 },
    { name: "Baked potato", quantity: 1, unit: "piece", grams: 173, ml: null, confidence: 0.84 },
    { name: "Green beans", quantity: 100, unit: "g", grams: 100, ml: null, confidence: 0.82 }
  ],
  [
    { name: "Cheese pizza", quantity: 2, unit: "slice", grams: 214, ml: null, confidence: 0.93 },
    { name: "Cola", quantity: 1, unit: "can", grams: null, ml: 330, confidence: 0.75 }
  ],
  [
    { name: "Oatmeal", quantity: 1, unit: "bowl", grams: 234, ml: null, confidence: 0.87 },
    { name: "Blueberries", quantity: 75, unit: "g", grams: 75, ml: null, confidence: 0.85 },
    { name: "Coffee", quantity: 1, unit: "cup", grams: null, ml: 240, confidence: 0.8 }
  ],
  [
    {
      name: "Pad thai",
      quantity: 1,
      unit: "plate",
      grams: 300,
      ml: null,
      confidence: 0.7,
      estimate: [510, 21, 60, 20]
    },
    { name: "Green tea", quantity: 1, unit: "cup", grams: null, ml: 240, confidence: 0.78 }
  ]
]

export const sandboxModel = "pulsebridge-sandbox-vision"

/** The meal the simulator answers for an image. */
export const sandboxMealFor = (imageSha256: string) =>
  sandboxMeals[Number.parseInt(imageSha256.slice(0, 8), 16) % sandboxMeals.length]!

const answerFor = (meal: ReadonlyArray<SimItem>) => ({
  isFood: true,
  notes: null,
  items: meal.map((item) => ({
    name: item.name,
    quantity: item.quantity,
    unit: item.unit,
    estimatedGrams: item.grams,
    estimatedVolumeMl: item.ml,
    preparation: null,
    confidence: item.confidence,
    nutrients: {
      kcal: item.estimate?.[0] ?? null,
      protein_g: item.estimate?.[1] ?? null,
      carbs_g: item.estimate?.[2] ?? null,
      fat_g: item.estimate?.[3] ?? null,
      fiber_g: null,
      sugar_g: null,
      sodium_mg: null,
      caffeine_mg: null
    }
  }))
})

const ChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Schema.Struct({
    role: Schema.String,
    content: Schema.Union(
      Schema.String,
      Schema.Array(Schema.Struct({
        type: Schema.String,
        text: Schema.optional(Schema.String),
        image_url: Schema.optional(Schema.Struct({ url: Schema.String }))
      }))
    )
  }))
})

const completion = (model: string, content: string) => ({
  id: `chatcmpl-${crypto.randomBytes(8).toString("hex")}`,
  object: "chat.completion",
  created: Math.floor(Date.now() / 1000),
  model,
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content, refusal: null } }],
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
})

const error = (status: number, type: string, message: string) =>
  HttpServerResponse.unsafeJson({ error: { message, type, code: type } }, { status })

export interface AnalyzerSimulator {
  readonly app: HttpApp.Default
  readonly injectFault: (fault: AnalyzerFault) => void
  readonly clearFaults: () => void
  readonly calls: () => ReadonlyArray<AnalyzerCall>
  /** Requests waiting on a `hold` fault. */
  readonly held: () => number
  /** Lets every held request answer. */
  readonly release: () => void
}

export const makeAnalyzerSimulator = (): AnalyzerSimulator => {
  const faults: Array<{ kind: AnalyzerFaultKind; remaining: number }> = []
  const calls: Array<AnalyzerCall> = []
  let waiting: Array<() => void> = []
  let seq = 0

  const takeFault = (): AnalyzerFaultKind | null => {
    const fault = faults[0]
    if (fault === undefined) return null
    fault.remaining -= 1
    if (fault.remaining <= 0) faults.shift()
    return fault.kind
  }
  const injectFault = (fault: AnalyzerFault) => {
    faults.push({ kind: fault.kind, remaining: Math.max(1, fault.count ?? 1) })
  }
  const release = () => {
    const resume = waiting
    waiting = []
    resume.forEach((f) => f())
  }

  const record = (call: Omit<AnalyzerCall, "seq">) => calls.push({ seq: ++seq, ...call })

  const completions = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!/^Bearer\s+\S+/i.test(request.headers["authorization"] ?? "")) {
      record({ status: 401, imageSha256: null, model: null, fault: null })
      return error(401, "invalid_api_key", "Missing bearer API key")
    }
    const body = yield* request.json.pipe(
      Effect.flatMap(Schema.decodeUnknown(ChatRequest)),
      Effect.option
    )
    if (body._tag === "None") {
      record({ status: 400, imageSha256: null, model: null, fault: null })
      return error(400, "invalid_request_error", "Not a chat completion request")
    }
    const imageUrl = body.value.messages.flatMap((m) => typeof m.content === "string" ? [] : m.content)
      .find((part) => part.type === "image_url")?.image_url?.url
    const data = imageUrl === undefined ? undefined : /^data:image\/[a-z]+;base64,(.*)$/s.exec(imageUrl)?.[1]
    if (data === undefined) {
      record({ status: 400, imageSha256: null, model: body.value.model, fault: null })
      return error(400, "invalid_request_error", "The request has no image as a base64 data URL")
    }
    const sha = crypto.createHash("sha256").update(Buffer.from(data, "base64")).digest("hex")
    const model = body.value.model
    const fault = takeFault()
    const done = (status: number) => record({ status, imageSha256: sha, model, fault })
    switch (fault) {
      case "rateLimit":
        done(429)
        return HttpServerResponse.setHeader(error(429, "rate_limit_exceeded", "Rate limit reached"), "retry-after", "1")
      case "serverError":
        done(503)
        return error(503, "server_error", "The model is overloaded")
      case "malformedJson":
        done(200)
        return HttpServerResponse.unsafeJson(completion(model, "Sure! Here is the meal: {\"isFood\": tru"))
      case "notFood":
        done(200)
        return HttpServerResponse.unsafeJson(
          completion(model, JSON.stringify({ isFood: false, notes: "a photo of a cat", items: [] }))
        )
      case "hold":
        yield* Effect.async<void>((resume) => {
          waiting.push(() => resume(Effect.void))
        })
        break
    }
    done(200)
    return HttpServerResponse.unsafeJson(completion(model, JSON.stringify(answerFor(sandboxMealFor(sha)))))
  })

  const FaultBody = Schema.Struct({
    kind: Schema.Literal("rateLimit", "serverError", "malformedJson", "notFood", "hold"),
    count: Schema.optional(Schema.Int.pipe(Schema.positive()))
  })

  const router = HttpRouter.empty.pipe(
    HttpRouter.post("/v1/chat/completions", completions),
    HttpRouter.get(
      "/v1/models",
      Effect.succeed(HttpServerResponse.unsafeJson({
        object: "list",
        data: [{ id: sandboxModel, object: "model", owned_by: "pulsebridge-sandbox" }]
      }))
    ),
    HttpRouter.get("/_sim/faults", Effect.sync(() => HttpServerResponse.unsafeJson({ faults }))),
    HttpRouter.post(
      "/_sim/faults",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* request.json.pipe(Effect.flatMap(Schema.decodeUnknown(FaultBody)), Effect.option)
        if (body._tag === "None") return error(400, "invalid_request_error", "invalid fault")
        injectFault(body.value)
        return HttpServerResponse.unsafeJson({ faults })
      })
    ),
    HttpRouter.del("/_sim/faults", Effect.sync(() => (faults.length = 0, HttpServerResponse.empty()))),
    HttpRouter.get(
      "/_sim/calls",
      Effect.sync(() => HttpServerResponse.unsafeJson({ calls, held: waiting.length }))
    ),
    HttpRouter.post("/_sim/release", Effect.sync(() => (release(), HttpServerResponse.empty())))
  )

  return {
    app: router as unknown as HttpApp.Default,
    injectFault,
    clearFaults: () => {
      faults.length = 0
    },
    calls: () => calls,
    held: () => waiting.length,
    release
  }
}
