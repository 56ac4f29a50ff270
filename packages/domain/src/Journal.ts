/**
 * The nutrition journal (endpoints 16-20): manual entries and AI-analysed meal photos.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import { JournalEntryId, LocalDate, Timestamp, TimeZone, UserId } from "./Common.js"
import { BadRequest, Forbidden, NotFound, PayloadTooLarge, UnsupportedMediaType } from "./Errors.js"

export const EntryKind = Schema.Literal("Meal", "Drink", "Water", "Coffee").annotations({ identifier: "EntryKind" })
export const EntrySource = Schema.Literal("Manual", "AiImage").annotations({ identifier: "EntrySource" })
export const AnalysisStatus = Schema.Literal("None", "Pending", "Completed", "Failed").annotations({
  identifier: "AnalysisStatus"
})

const nutrient = Schema.NullOr(Schema.Number)

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
}) {}

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
}).annotations({ identifier: "NutrientsInput", parseOptions: { onExcessProperty: "error" } })

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

export class CreateJournalEntryPayload extends Schema.Class<CreateJournalEntryPayload>("CreateJournalEntryPayload")({
  entryKind: EntryKind,
  consumedAtUtc: Schema.Date,
  timezone: Schema.optional(TimeZone),
  title: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  notes: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  nutrients: Schema.optional(NutrientsInput)
}) {}

export const ItemInput = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  quantity: Schema.NonNegative.pipe(Schema.finite()),
  unit: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(50)),
  nutrients: Schema.optional(NutrientsInput)
}).annotations({ identifier: "ItemInput" })

export class UpdateJournalEntryPayload extends Schema.Class<UpdateJournalEntryPayload>("UpdateJournalEntryPayload")({
  items: Schema.optional(Schema.Array(ItemInput)),
  entryKind: Schema.optional(EntryKind),
  consumedAtUtc: Schema.optional(Schema.Date),
  timezone: Schema.optional(TimeZone),
  title: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  notes: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  nutrients: Schema.optional(NutrientsInput)
}) {}

export const MaxImageBytes = 10 * 1024 * 1024

export const ScanPayload = HttpApiSchema.Multipart(
  Schema.Struct({
    image: Multipart.SingleFileSchema,
    entryKind: Schema.optional(EntryKind),
    consumedAtUtc: Schema.optional(Schema.Date),
    timezone: Schema.optional(TimeZone),
    notes: Schema.optional(Schema.String)
  })
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
  )
  .add(
    HttpApiEndpoint.post("scan", "/api/v1/users/:userId/journal-entries/scans")
      .setPath(userPath)
      .setPayload(ScanPayload)
      .addSuccess(JournalEntry, { status: 202 })
      .addError(PayloadTooLarge)
      .addError(UnsupportedMediaType)
      .annotate(OpenApi.Summary, "Upload a meal photo for analysis")
      .annotate(OpenApi.Description, "JPEG, PNG or WebP, at most 10 MiB. Answers 202 with analysisStatus Pending.")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/users/:userId/journal-entries")
      .setPath(userPath)
      .setUrlParams(Schema.Struct({ date: LocalDate }))
      .addSuccess(Schema.Array(JournalEntrySummary))
      .annotate(OpenApi.Summary, "List the entries of one journal date")
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
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Fetch the stored meal photo")
      .annotate(OpenApi.Description, "The bytes as uploaded, with the stored content type.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/users/:userId/journal-entries/:entryId")
      .setPath(entryPath)
      .setPayload(UpdateJournalEntryPayload)
      .addSuccess(JournalEntry)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Correct a journal entry")
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Journal")
  .annotate(OpenApi.Description, "The user's nutrition journal, with a user token")
{}
