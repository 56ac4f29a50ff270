/**
 * The nutrition journal (endpoints 16-20): manual entries and AI-analysed meal photos, plus the
 * stored photo of a scan.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import { ContractString, JournalEntryId, LocalDate, Timestamp, TimeZone, UserId } from "./Common.js"
import { BadRequest, Forbidden, NotFound, PayloadTooLarge, UnsupportedMediaType } from "./Errors.js"
import { GlucoseResponse } from "./GlucoseResponse.js"

export const EntryKind = Schema.Literal("Meal", "Drink", "Water", "Coffee").annotations({ identifier: "EntryKind" })
export type EntryKind = typeof EntryKind.Type

export const EntrySource = Schema.Literal("Manual", "AiImage").annotations({ identifier: "EntrySource" })
export type EntrySource = typeof EntrySource.Type

export const AnalysisStatus = Schema.Literal("None", "Pending", "Completed", "Failed").annotations({
  identifier: "AnalysisStatus",
  description: "`None` for manual entries (and scans whose analysis an edit cancelled), `Pending` while a photo " +
    "is analysed, then `Completed` or `Failed` (the entry stays and can be edited)"
})
export type AnalysisStatus = typeof AnalysisStatus.Type

const nutrient = Schema.NullOr(Schema.Number)

export const nutrientKeys = [
  "caloriesKcal",
  "proteinGrams",
  "carbsGrams",
  "fatGrams",
  "fiberGrams",
  "sugarGrams",
  "sodiumMg",
  "caffeineMg",
  "volumeMl"
] as const
export type NutrientKey = typeof nutrientKeys[number]

export class Nutrients extends Schema.Class<Nutrients>("Nutrients")({
  caloriesKcal: nutrient,
  proteinGrams: nutrient,
  carbsGrams: nutrient,
  fatGrams: nutrient,
  fiberGrams: nutrient,
  sugarGrams: nutrient,
  sodiumMg: nutrient,
  caffeineMg: nutrient,
  volumeMl: nutrient
}, { description: "Every key is present; null when unknown" }) {}

const amount = Schema.optional(Schema.NullOr(Schema.NonNegative.pipe(Schema.finite())))

/** Nutrients as accepted in requests: every key optional, values non-negative numbers or null. */
export const NutrientsInput = Schema.Struct({
  caloriesKcal: amount,
  proteinGrams: amount,
  carbsGrams: amount,
  fatGrams: amount,
  fiberGrams: amount,
  sugarGrams: amount,
  sodiumMg: amount,
  caffeineMg: amount,
  volumeMl: amount
}).annotations({
  identifier: "NutrientsInput",
  description: "Any of the nine nutrient keys; unknown keys are refused",
  parseOptions: { onExcessProperty: "error" }
})
export type NutrientsInput = typeof NutrientsInput.Type

export const NutrientSource = Schema.Literal("FoodTable", "ModelEstimate", "User").annotations({
  identifier: "NutrientSource",
  description: "Where an item's nutrients come from: the food composition table, the analysing model's own " +
    "estimate (only when the table has no match), or the user"
})
export type NutrientSource = typeof NutrientSource.Type

export class Item extends Schema.Class<Item>("Item")({
  id: Schema.UUID,
  name: Schema.String,
  category: Schema.String,
  quantity: Schema.Number,
  unit: Schema.String,
  estimatedWeightGrams: Schema.NullOr(Schema.Number),
  nutrients: Nutrients,
  confidence: Schema.NullOr(Schema.Number),
  sortOrder: Schema.Int,
  nutrientSource: Schema.NullOr(NutrientSource),
  foodSourceId: Schema.NullOr(Schema.String).annotations({
    description: "Source id of the matched row of the food composition table (e.g. `usda-sr:09040`)"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class Image extends Schema.Class<Image>("Image")({
  id: Schema.UUID,
  storageProvider: Schema.String,
  fileName: Schema.String,
  contentType: Schema.String,
  sizeBytes: Schema.Int,
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const AnalyzerName = Schema.Literal("openai", "offline", "sandbox").annotations({ identifier: "AnalyzerName" })
export type AnalyzerName = typeof AnalyzerName.Type

export class AnalysisDetails extends Schema.Class<AnalysisDetails>("AnalysisDetails")({
  analyzer: AnalyzerName.annotations({ description: "`sandbox` marks results of the built-in simulator" }),
  model: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String).annotations({
    description: "Why the analysis ended without a result (Failed, or cancelled by an edit)"
  }),
  finishedAt: Schema.NullOr(Timestamp)
}, { description: "How the photo of a scan was analysed; null for manual entries" }) {}

const entryFields = {
  id: JournalEntryId,
  entryKind: EntryKind,
  entrySource: EntrySource,
  analysisStatus: AnalysisStatus,
  title: Schema.String,
  notes: Schema.NullOr(Schema.String),
  consumedAtUtc: Timestamp,
  journalDate: LocalDate,
  timezone: Schema.String,
  isUserEdited: Schema.Boolean,
  nutrients: Nutrients
}

export class JournalEntry extends Schema.Class<JournalEntry>("JournalEntry")({
  ...entryFields,
  items: Schema.Array(Item),
  image: Schema.NullOr(Image),
  analysis: Schema.NullOr(AnalysisDetails),
  glucoseResponse: Schema.NullOr(GlucoseResponse).annotations({
    description: "What the user's glucose did after a Meal, Drink or Coffee, computed at each read; null for " +
      "Water and for an entry without glucose data around it (no reading from 30 minutes before to 3 hours " +
      "after it, and none that may still arrive)"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class JournalEntrySummary extends Schema.Class<JournalEntrySummary>("JournalEntrySummary")({
  ...entryFields,
  itemCount: Schema.Int,
  hasImage: Schema.Boolean,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/** An ISO 8601 date-time with a zone (`Z` or an offset), decoded strictly to a `Date`. */
export const TimestampInput = Timestamp.annotations({
  identifier: "TimestampInput",
  description: "ISO 8601 timestamp with `Z` or an offset; each field within its range (no 2026-02-30)"
})

const Title = ContractString({ minLength: 1, maxLength: 200 })
const NotesText = ContractString({ maxLength: 2000, freeText: true })
const Notes = Schema.NullOr(NotesText)

const closed = { parseOptions: { onExcessProperty: "error" } } as const

export const CreateJournalEntryPayload = Schema.Struct({
  entryKind: EntryKind,
  consumedAtUtc: TimestampInput,
  timezone: Schema.optional(TimeZone.annotations({ description: "Default: the user's time zone" })),
  title: Schema.optional(Title.annotations({ description: "Default: the entry kind" })),
  notes: Schema.optional(Notes),
  nutrients: Schema.optional(NutrientsInput)
}).annotations({
  identifier: "CreateJournalEntryPayload",
  description: "A manual entry; unknown fields are refused",
  ...closed
})
export type CreateJournalEntryPayload = typeof CreateJournalEntryPayload.Type

export const ItemInput = Schema.Struct({
  name: ContractString({ minLength: 1, maxLength: 200 }),
  quantity: Schema.NonNegative.pipe(Schema.finite()),
  unit: ContractString({ minLength: 1, maxLength: 50 }),
  nutrients: Schema.optional(NutrientsInput)
}).annotations({ identifier: "ItemInput", ...closed })
export type ItemInput = typeof ItemInput.Type

export const MaxItems = 50

export const UpdateJournalEntryPayload = Schema.Struct({
  items: Schema.optional(
    Schema.Array(ItemInput).pipe(Schema.maxItems(MaxItems)).annotations({
      description: "Replaces every item (sortOrder = list order); the entry's nutrients become the items' sum and " +
        "its title their names"
    })
  ),
  entryKind: Schema.optional(EntryKind),
  consumedAtUtc: Schema.optional(TimestampInput),
  timezone: Schema.optional(TimeZone),
  title: Schema.optional(Title),
  notes: Schema.optional(Notes),
  nutrients: Schema.optional(NutrientsInput.annotations({
    description: "Only for an entry without items: the given keys replace the stored values"
  }))
}).annotations({
  identifier: "UpdateJournalEntryPayload",
  description: "A correction; every field optional, unknown fields refused",
  ...closed
})
export type UpdateJournalEntryPayload = typeof UpdateJournalEntryPayload.Type

export const MaxImageBytes = 10 * 1024 * 1024

export const acceptedImageTypes = ["image/jpeg", "image/png", "image/webp"] as const

export const ScanPayload = HttpApiSchema.Multipart(
  Schema.Struct({
    image: Multipart.SingleFileSchema.annotations({ description: "JPEG, PNG or WebP, at most 10 MiB" }),
    entryKind: Schema.optional(EntryKind.annotations({ description: "Default: Meal" })),
    consumedAtUtc: Schema.optional(TimestampInput.annotations({ description: "Default: the time of the upload" })),
    timezone: Schema.optional(TimeZone.annotations({ description: "Default: the user's time zone" })),
    notes: Schema.optional(
      NotesText.annotations({
        description: "A caption, e.g. \"2 eggs, toast with butter, 250 ml coffee\"; the offline analyser reads it"
      })
    )
  }),
  {
    maxParts: Option.some(10),
    maxFieldSize: FileSystem.KiB(16),
    // The 10 MiB image limit is enforced by the server on the bytes received: the platform's parser
    // stalls instead of failing when a file part overruns `maxFileSize`.
    maxFileSize: Option.none()
  }
)

const userPath = Schema.Struct({ userId: UserId })
const entryPath = Schema.Struct({ userId: UserId, entryId: JournalEntryId })

export class JournalGroup extends HttpApiGroup.make("journal")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/users/:userId/journal-entries")
      .setPath(userPath)
      .setPayload(CreateJournalEntryPayload)
      .addSuccess(JournalEntry, { status: 201 })
      .annotate(OpenApi.Summary, "Create a manual journal entry")
      .annotate(
        OpenApi.Description,
        "A Meal, Drink, Water or Coffee entry (e.g. coffee with caffeineMg and volumeMl). Answers 201 with " +
          "entrySource Manual, analysisStatus None; nutrients not supplied are null. The journalDate is the local " +
          "date of consumedAtUtc in the entry's time zone."
      )
  )
  .add(
    HttpApiEndpoint.post("scan", "/api/v1/users/:userId/journal-entries/scans")
      .setPath(userPath)
      .setPayload(ScanPayload)
      .addSuccess(JournalEntry, { status: 202 })
      .addError(PayloadTooLarge)
      .addError(UnsupportedMediaType)
      .annotate(OpenApi.Summary, "Upload a meal photo for analysis")
      .annotate(
        OpenApi.Description,
        "multipart/form-data with `image` (JPEG, PNG or WebP by content, at most 10 MiB: larger gives 413, other " +
          "types 415, a file not built as the type it claims (damaged, truncated) 415, no image 400; `notes` at " +
          "most 2,000 characters) and optional `entryKind`, `consumedAtUtc`, `timezone`, `notes`. Answers 202 " +
          "with analysisStatus Pending and entrySource AiImage; the analysis runs in the background and ends " +
          "Completed (items, nutrients, a title naming the items) or Failed (the reason is in `analysis.reason`)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/users/:userId/journal-entries")
      .setPath(userPath)
      .setUrlParams(Schema.Struct({ date: LocalDate }))
      .addSuccess(Schema.Array(JournalEntrySummary))
      .annotate(OpenApi.Summary, "List the entries of one journal date")
      .annotate(OpenApi.Description, "In list form (itemCount, hasImage), ordered by consumedAtUtc.")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/users/:userId/journal-entries/:entryId")
      .setPath(entryPath)
      .addSuccess(JournalEntry)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a journal entry with items and image")
  )
  .add(
    HttpApiEndpoint.get("image", "/api/v1/users/:userId/journal-entries/:entryId/image")
      .setPath(entryPath)
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/*" }))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Fetch the stored meal photo")
      .annotate(
        OpenApi.Description,
        "The bytes as uploaded, with the stored content type (image/jpeg, image/png or image/webp). 404 for an " +
          "entry without a photo."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/users/:userId/journal-entries/:entryId")
      .setPath(entryPath)
      .setPayload(UpdateJournalEntryPayload)
      .addSuccess(JournalEntry)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Correct a journal entry")
      .annotate(
        OpenApi.Description,
        "`items` replaces the entry's items (category empty, weight and confidence null, sortOrder in list order), " +
          "the entry's nutrients become the items' sum and its title the items' names. `nutrients` is accepted only " +
          "for an entry without items. Every edit sets isUserEdited and bumps updatedAt; editing a Pending entry " +
          "cancels its analysis (status None)."
      )
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Journal")
  .annotate(OpenApi.Description, "The user's nutrition journal, with a user token")
{}
