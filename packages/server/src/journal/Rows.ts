/**
 * The journal's rows as the contract's shapes: a `JournalEntry` in full (with its items, photo
 * metadata and glucose response), a `JournalEntrySummary` in list form, and the `AnalysisSubject`
 * an analysis reads. The export and the MCP tools answer entries in these same shapes.
 */
import type { EntryKind, GlucoseResponse } from "@pulsebridge/domain"
import { AnalysisDetails, Image, Item, JournalEntry, JournalEntrySummary } from "@pulsebridge/domain"
import * as Option from "effect/Option"
import type { EntryRow, ImageRow, ItemRow, SubjectRow, SummaryRow } from "./JournalRepo.js"
import * as N from "./Nutrients.js"

/** What an analysis reads of its entry. */
export interface AnalysisSubject {
  readonly entryId: string
  readonly status: EntryRow["analysisStatus"]
  readonly entryKind: EntryKind
  readonly notes: string | null
  readonly image: Option.Option<{ readonly storageKey: string; readonly contentType: string }>
}

const toItem = (row: ItemRow) =>
  Item.make({
    id: row.id,
    name: row.name,
    category: row.category,
    quantity: row.quantity,
    unit: row.unit,
    estimatedWeightGrams: row.estimatedWeightGrams,
    nutrients: N.toNutrients(N.nutrientsOf(row)),
    confidence: row.confidence,
    sortOrder: row.sortOrder,
    nutrientSource: row.nutrientSource,
    foodSourceId: row.foodSourceId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const toImage = (row: ImageRow) =>
  Image.make({
    id: row.id,
    storageProvider: row.storageProvider,
    fileName: row.fileName,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    width: row.width,
    height: row.height,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const baseFields = (row: EntryRow) => ({
  id: row.id,
  entryKind: row.entryKind,
  entrySource: row.entrySource,
  analysisStatus: row.analysisStatus,
  title: row.title,
  notes: row.notes,
  consumedAtUtc: row.consumedAtUtc,
  journalDate: row.journalDate,
  timezone: row.timezone,
  isUserEdited: row.isUserEdited,
  nutrients: N.toNutrients(N.nutrientsOf(row)),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** An entry as the reads answer it (endpoint 19), from its rows and its glucose response; the export uses it too. */
export const toEntry = (
  row: EntryRow,
  items: ReadonlyArray<ItemRow>,
  image: Option.Option<ImageRow>,
  glucoseResponse: GlucoseResponse | null
) =>
  JournalEntry.make({
    ...baseFields(row),
    items: items.map(toItem),
    image: Option.getOrNull(Option.map(image, toImage)),
    analysis: row.analyzer === null ? null : AnalysisDetails.make({
      analyzer: row.analyzer,
      model: row.analysisModel,
      reason: row.analysisReason,
      finishedAt: row.analysisFinishedAt
    }),
    glucoseResponse
  })

export const toSummary = (row: SummaryRow) =>
  JournalEntrySummary.make({ ...baseFields(row), itemCount: row.itemCount, hasImage: row.hasImage })

export const toSubject = (row: SubjectRow): AnalysisSubject => ({
  entryId: row.id,
  status: row.analysisStatus,
  entryKind: row.entryKind,
  notes: row.notes,
  image: row.storageKey === null
    ? Option.none()
    : Option.some({ storageKey: row.storageKey, contentType: row.contentType ?? "application/octet-stream" })
})
