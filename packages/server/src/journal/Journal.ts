/**
 * The nutrition journal of a user: manual entries, scans (the photo goes to the `BlobStore`, the
 * analysis to the `AnalysisQueue`), reads in full and list form, corrections, and the two ends of
 * an analysis. Every query is scoped by the user's id, so an entry of another user is a 404.
 *
 * Ending an analysis is a conditional update (`where analysis_status = 'Pending'`) in one
 * transaction with its items: an edit that came first wins, and a re-run after a crash changes
 * nothing.
 */
import { SqlClient } from "@effect/sql"
import type {
  AnalysisStatus,
  AnalyzerName,
  CreateJournalEntryPayload,
  EntryKind,
  EntrySource,
  ItemInput,
  JournalEntryId,
  NutrientSource,
  UpdateJournalEntryPayload,
  UserId
} from "@pulsebridge/domain"
import {
  AnalysisDetails,
  BadRequest,
  Image,
  Item,
  JournalEntry,
  JournalEntrySummary,
  MaxImageBytes,
  NotFound,
  nutrientKeys,
  PayloadTooLarge,
  UnsupportedMediaType
} from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { imageSize } from "image-size"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import { newId } from "../platform/Ids.js"
import { AnalysisQueue } from "./AnalysisQueue.js"
import { BlobStore } from "./BlobStore.js"
import type { NutrientValues } from "./Nutrients.js"
import * as N from "./Nutrients.js"

/** Who is asking: the user of the token. */
export interface JournalUser {
  readonly appId: string
  readonly userId: UserId
  readonly timezone: string
}

/** An item as the analysis (or an edit) produced it, before it is stored. */
export interface NewItem {
  readonly name: string
  readonly category: string
  readonly quantity: number
  readonly unit: string
  readonly estimatedWeightGrams: number | null
  readonly confidence: number | null
  readonly nutrients: NutrientValues
  readonly nutrientSource: NutrientSource | null
  readonly foodSourceId: string | null
}

export interface ScanUpload {
  /** The uploaded file, persisted by the multipart parser. */
  readonly path: string
  readonly fileName: string
  readonly entryKind?: EntryKind | undefined
  readonly consumedAtUtc?: Date | undefined
  readonly timezone?: string | undefined
  readonly notes?: string | undefined
}

/** What an analysis reads of its entry. */
export interface AnalysisSubject {
  readonly entryId: string
  readonly status: AnalysisStatus
  readonly entryKind: EntryKind
  readonly notes: string | null
  readonly image: Option.Option<{ readonly storageKey: string; readonly contentType: string }>
}

type NutrientColumns = { readonly [K in keyof NutrientValues]: number | null }

interface EntryRow extends NutrientColumns {
  readonly id: JournalEntryId
  readonly entryKind: EntryKind
  readonly entrySource: EntrySource
  readonly analysisStatus: AnalysisStatus
  readonly analyzer: AnalyzerName | null
  readonly analysisModel: string | null
  readonly analysisReason: string | null
  readonly analysisFinishedAt: Date | null
  readonly title: string
  readonly notes: string | null
  readonly consumedAtUtc: Date
  readonly journalDate: string
  readonly timezone: string
  readonly isUserEdited: boolean
  readonly createdAt: Date
  readonly updatedAt: Date
}

interface SummaryRow extends EntryRow {
  readonly itemCount: number
  readonly hasImage: boolean
}

interface ItemRow extends NutrientColumns {
  readonly id: string
  readonly entryId: string
  readonly name: string
  readonly category: string
  readonly quantity: number
  readonly unit: string
  readonly estimatedWeightGrams: number | null
  readonly confidence: number | null
  readonly sortOrder: number
  readonly nutrientSource: NutrientSource | null
  readonly foodSourceId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

interface ImageRow {
  readonly id: string
  readonly entryId: string
  readonly storageProvider: string
  readonly storageKey: string
  readonly fileName: string
  readonly contentType: string
  readonly sizeBytes: number
  readonly width: number | null
  readonly height: number | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const nutrientsOf = (row: NutrientColumns): NutrientValues =>
  Object.fromEntries(nutrientKeys.map((k) => [k, row[k] === null ? null : Number(row[k])])) as any

const localDate = (instant: Date, timeZone: string): string => {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(instant)
  const get = (type: string) => parts.find((p) => p.type === type)!.value
  return `${get("year")}-${get("month")}-${get("day")}`
}

export const MaxTitleLength = 200

/** The title of an entry with items: the item's name, or the names joined. */
export const titleOf = (names: ReadonlyArray<string>): string => {
  const joined = names.join(", ")
  return joined.length <= MaxTitleLength ? joined : `${joined.slice(0, MaxTitleLength - 1)}…`
}

const defaultTitle: Record<EntryKind, string> = { Meal: "Meal", Drink: "Drink", Water: "Water", Coffee: "Coffee" }
const photoTitle: Record<EntryKind, string> = {
  Meal: "Meal photo",
  Drink: "Drink photo",
  Water: "Water photo",
  Coffee: "Coffee photo"
}

const cancelledReason = "Cancelled: the entry was edited before the analysis finished"

const toItem = (row: ItemRow) =>
  new Item({
    id: row.id,
    name: row.name,
    category: row.category,
    quantity: Number(row.quantity),
    unit: row.unit,
    estimatedWeightGrams: row.estimatedWeightGrams === null ? null : Number(row.estimatedWeightGrams),
    nutrients: N.toNutrients(nutrientsOf(row)),
    confidence: row.confidence === null ? null : Number(row.confidence),
    sortOrder: row.sortOrder,
    nutrientSource: row.nutrientSource,
    foodSourceId: row.foodSourceId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, true)

const toImage = (row: ImageRow) =>
  new Image({
    id: row.id,
    storageProvider: row.storageProvider,
    fileName: row.fileName,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    width: row.width,
    height: row.height,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, true)

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
  nutrients: N.toNutrients(nutrientsOf(row)),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

const toEntry = (row: EntryRow, items: ReadonlyArray<ItemRow>, image: ImageRow | undefined) =>
  new JournalEntry({
    ...baseFields(row),
    items: items.map(toItem),
    image: image === undefined ? null : toImage(image),
    analysis: row.analyzer === null ? null : new AnalysisDetails({
      analyzer: row.analyzer,
      model: row.analysisModel,
      reason: row.analysisReason,
      finishedAt: row.analysisFinishedAt
    }, true)
  }, true)

const entryColumns = `
  e.id, e.entry_kind, e.entry_source, e.analysis_status, e.analyzer, e.analysis_model, e.analysis_reason,
  e.analysis_finished_at, e.title, e.notes, e.consumed_at_utc, e.journal_date::text as journal_date, e.timezone,
  e.is_user_edited, ${nutrientKeys.map((k) => `e.${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`).join(", ")},
  e.created_at, e.updated_at
`

/** The image types accepted for a scan, by what the file is (not what the client says it is). */
const imageTypes: Record<string, { readonly contentType: string; readonly extension: string }> = {
  jpg: { contentType: "image/jpeg", extension: "jpg" },
  png: { contentType: "image/png", extension: "png" },
  webp: { contentType: "image/webp", extension: "webp" }
}

/** Reads an uploaded photo: its bytes, its type (by content) and its dimensions. */
export const inspectImage = (bytes: Uint8Array) => {
  if (bytes.length === 0) return Effect.fail(new BadRequest({ message: "The image is empty" }))
  if (bytes.length > MaxImageBytes) {
    return Effect.fail(new PayloadTooLarge({ message: "The image may be at most 10 MiB" }))
  }
  let size: ReturnType<typeof imageSize>
  try {
    size = imageSize(bytes)
  } catch (e) {
    const message = (e as Error).message
    return Effect.fail(
      message.startsWith("unsupported file type")
        ? new UnsupportedMediaType({ message: "The image must be a JPEG, PNG or WebP file" })
        : new BadRequest({ message: "The image could not be read: it is damaged or truncated" })
    )
  }
  const type = size.type === undefined ? undefined : imageTypes[size.type]
  if (type === undefined) {
    return Effect.fail(
      new UnsupportedMediaType({
        message: `The image must be a JPEG, PNG or WebP file, not ${size.type ?? "an unknown type"}`
      })
    )
  }
  return Effect.succeed({ ...type, width: size.width ?? null, height: size.height ?? null })
}

export class Journal extends Effect.Service<Journal>()("@pulsebridge/server/Journal", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const blobs = yield* BlobStore
    const queue = yield* AnalysisQueue
    const cols = sql.literal(entryColumns)

    const findRow = (userId: UserId, entryId: string) =>
      sql<EntryRow>`select ${cols} from journal_entries e where e.id = ${entryId} and e.user_id = ${userId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const requireRow = (userId: UserId, entryId: string) =>
      Effect.flatMap(
        findRow(userId, entryId).pipe(Effect.orDie),
        Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `no journal entry with id ${entryId}` })),
          onSome: Effect.succeed
        })
      )

    const lockRow = (userId: UserId, entryId: string) =>
      Effect.flatMap(
        sql<EntryRow>`
          select ${cols} from journal_entries e where e.id = ${entryId} and e.user_id = ${userId} for update
        `.pipe(Effect.orDie),
        (rows) =>
          rows[0] === undefined
            ? Effect.fail(new NotFound({ message: `no journal entry with id ${entryId}` }))
            : Effect.succeed(rows[0])
      )

    const load = (row: EntryRow) =>
      Effect.gen(function*() {
        const items = yield* sql<ItemRow>`
          select * from journal_items where entry_id = ${row.id} order by sort_order
        `
        const images = yield* sql<ImageRow>`select * from journal_images where entry_id = ${row.id}`
        return toEntry(row, items, images[0])
      }).pipe(Effect.orDie)

    const insertItems = (entryId: string, items: ReadonlyArray<NewItem>) =>
      items.length === 0 ? Effect.void : sql`insert into journal_items ${
        sql.insert(items.map((item, index) => ({
          id: newId(),
          entryId,
          name: item.name,
          category: item.category,
          quantity: item.quantity,
          unit: item.unit,
          estimatedWeightGrams: item.estimatedWeightGrams,
          confidence: item.confidence,
          sortOrder: index,
          nutrientSource: item.nutrientSource,
          foodSourceId: item.foodSourceId,
          ...item.nutrients
        })))
      }`

    const fromInput = (item: ItemInput): NewItem => ({
      name: item.name,
      category: "",
      quantity: item.quantity,
      unit: item.unit,
      estimatedWeightGrams: null,
      confidence: null,
      nutrients: N.fromInput(item.nutrients),
      nutrientSource: item.nutrients === undefined ? null : "User",
      foodSourceId: null
    })

    return {
      /** A manual entry (endpoint 16). */
      create: (user: JournalUser, payload: CreateJournalEntryPayload) =>
        Effect.gen(function*() {
          const timezone = payload.timezone ?? user.timezone
          const id = newId()
          yield* sql`insert into journal_entries ${
            sql.insert({
              id,
              appId: user.appId,
              userId: user.userId,
              entryKind: payload.entryKind,
              entrySource: "Manual",
              analysisStatus: "None",
              title: payload.title ?? defaultTitle[payload.entryKind],
              notes: payload.notes ?? null,
              consumedAtUtc: payload.consumedAtUtc,
              journalDate: localDate(payload.consumedAtUtc, timezone),
              timezone,
              isUserEdited: false,
              ...N.fromInput(payload.nutrients)
            })
          }`
          return yield* load(yield* findRow(user.userId, id).pipe(Effect.map(Option.getOrThrow)))
        }).pipe(Effect.orDie),

      /**
       * A scan (endpoint 17): checks the photo, stores it, records the Pending entry and hands it to
       * the analysis. Nothing is stored when the photo is refused.
       */
      createScan: (user: JournalUser, upload: ScanUpload, analyzer: { name: AnalyzerName; model: string | null }) =>
        Effect.gen(function*() {
          const buffer = yield* Effect.promise(() => fs.readFile(upload.path))
          const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
          const image = yield* inspectImage(bytes)
          const entryKind = upload.entryKind ?? "Meal"
          const consumedAt = upload.consumedAtUtc ?? new Date()
          const timezone = upload.timezone ?? user.timezone
          const entryId = newId()
          const imageId = newId()
          const storageKey = `journal/${user.userId}/${imageId}.${image.extension}`
          yield* blobs.put(storageKey, bytes)
          const fileName = upload.fileName.trim() === "" ? `photo.${image.extension}` : upload.fileName.slice(0, 255)
          yield* Effect.gen(function*() {
            yield* sql`insert into journal_entries ${
              sql.insert({
                id: entryId,
                appId: user.appId,
                userId: user.userId,
                entryKind,
                entrySource: "AiImage",
                analysisStatus: "Pending",
                analyzer: analyzer.name,
                analysisModel: analyzer.model,
                title: photoTitle[entryKind],
                notes: upload.notes ?? null,
                consumedAtUtc: consumedAt,
                journalDate: localDate(consumedAt, timezone),
                timezone,
                isUserEdited: false
              })
            }`
            yield* sql`insert into journal_images ${
              sql.insert({
                id: imageId,
                entryId,
                storageProvider: blobs.provider,
                storageKey,
                fileName,
                contentType: image.contentType,
                sizeBytes: bytes.length,
                width: image.width,
                height: image.height,
                sha256: crypto.createHash("sha256").update(bytes).digest("hex")
              })
            }`
          }).pipe(
            sql.withTransaction,
            Effect.tapErrorCause(() => blobs.remove(storageKey)),
            Effect.orDie
          )
          // After the commit: the queue talks to the database on its own connection.
          yield* queue.enqueue(entryId)
          return yield* load(yield* findRow(user.userId, entryId).pipe(Effect.map(Option.getOrThrow), Effect.orDie))
        }),

      /** The entries of one journal date, in list form (endpoint 18). */
      list: (user: JournalUser, date: string) =>
        sql<SummaryRow>`
          select ${cols},
            (select count(*)::int from journal_items i where i.entry_id = e.id) as item_count,
            exists (select 1 from journal_images m where m.entry_id = e.id) as has_image
          from journal_entries e
          where e.user_id = ${user.userId} and e.journal_date = ${date}::date
          order by e.consumed_at_utc, e.created_at, e.id
        `.pipe(
          Effect.map((rows) =>
            rows.map((row) =>
              new JournalEntrySummary({ ...baseFields(row), itemCount: row.itemCount, hasImage: row.hasImage }, true)
            )
          ),
          Effect.orDie
        ),

      /** One entry in full (endpoint 19). */
      get: (user: JournalUser, entryId: string) => Effect.flatMap(requireRow(user.userId, entryId), load),

      /** The stored photo of an entry. */
      image: (user: JournalUser, entryId: string) =>
        Effect.gen(function*() {
          yield* requireRow(user.userId, entryId)
          const rows = yield* sql<ImageRow>`select * from journal_images where entry_id = ${entryId}`.pipe(Effect.orDie)
          const row = rows[0]
          if (row === undefined) return yield* new NotFound({ message: "this journal entry has no photo" })
          const bytes = yield* blobs.get(row.storageKey).pipe(
            Effect.catchTag("BlobNotFound", () => new NotFound({ message: "the photo of this entry is missing" }))
          )
          return { bytes, contentType: row.contentType, fileName: row.fileName }
        }),

      /** A correction (endpoint 20), with the merge rules of the journal. */
      update: (user: JournalUser, entryId: string, payload: UpdateJournalEntryPayload) =>
        Effect.gen(function*() {
          // The row lock makes a concurrent end of the analysis wait for this edit, then find it not Pending.
          const current = yield* lockRow(user.userId, entryId)
          const items = payload.items?.map(fromInput)
          const itemCount = items !== undefined
            ? items.length
            : (yield* sql<{ count: number }>`
              select count(*)::int as count from journal_items where entry_id = ${entryId}
            `.pipe(Effect.orDie))[0]!.count
          if (payload.nutrients !== undefined && itemCount > 0) {
            return yield* new BadRequest({
              message: "nutrients can only be set on an entry without items; send the items with their nutrients"
            })
          }
          let nutrients = nutrientsOf(current)
          let title = payload.title ?? current.title
          if (items !== undefined && items.length > 0) {
            nutrients = N.sum(items.map((item) => item.nutrients))
            if (payload.title === undefined) title = titleOf(items.map((item) => item.name))
          }
          if (payload.nutrients !== undefined) nutrients = N.merge(nutrients, payload.nutrients)
          const consumedAt = payload.consumedAtUtc ?? current.consumedAtUtc
          const timezone = payload.timezone ?? current.timezone
          const cancels = current.analysisStatus === "Pending"
          yield* sql`
            update journal_entries set
              entry_kind = ${payload.entryKind ?? current.entryKind},
              title = ${title},
              notes = ${payload.notes === undefined ? current.notes : payload.notes},
              consumed_at_utc = ${consumedAt},
              timezone = ${timezone},
              journal_date = ${localDate(consumedAt, timezone)}::date,
              is_user_edited = true,
              analysis_status = ${cancels ? "None" : current.analysisStatus},
              analysis_reason = ${cancels ? cancelledReason : current.analysisReason},
              analysis_finished_at = ${cancels ? new Date() : current.analysisFinishedAt},
              ${sql.update(nutrients)},
              updated_at = greatest(now(), updated_at + interval '1 millisecond')
            where id = ${entryId}
          `.pipe(Effect.orDie)
          if (items !== undefined) {
            yield* sql`delete from journal_items where entry_id = ${entryId}`.pipe(Effect.orDie)
            yield* insertItems(entryId, items).pipe(Effect.orDie)
          }
          return yield* load(Option.getOrThrow(yield* findRow(user.userId, entryId).pipe(Effect.orDie)))
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)),

      /** What the analysis of `entryId` reads; none when the entry is gone. */
      subject: (entryId: string) =>
        Effect.gen(function*() {
          const rows = yield* sql<{
            id: string
            analysisStatus: AnalysisStatus
            entryKind: EntryKind
            notes: string | null
            storageKey: string | null
            contentType: string | null
          }>`
            select e.id, e.analysis_status, e.entry_kind, e.notes, m.storage_key, m.content_type
            from journal_entries e left join journal_images m on m.entry_id = e.id
            where e.id = ${entryId}
          `
          const row = rows[0]
          if (row === undefined) return Option.none<AnalysisSubject>()
          return Option.some<AnalysisSubject>({
            entryId: row.id,
            status: row.analysisStatus,
            entryKind: row.entryKind,
            notes: row.notes,
            image: row.storageKey === null
              ? Option.none()
              : Option.some({ storageKey: row.storageKey, contentType: row.contentType ?? "application/octet-stream" })
          })
        }).pipe(Effect.orDie),

      /** The photo bytes of an analysis subject. */
      photo: (storageKey: string) => blobs.get(storageKey),

      /**
       * Ends a Pending analysis with its items: entry nutrients are their sum and the title names them.
       * False when the entry is no longer Pending (an edit won, or this ran already).
       */
      completeAnalysis: (entryId: string, items: ReadonlyArray<NewItem>, model: string | null) =>
        Effect.gen(function*() {
          const nutrients = N.sum(items.map((item) => item.nutrients))
          const updated = yield* sql<{ id: string }>`
            update journal_entries set
              analysis_status = 'Completed',
              analysis_model = coalesce(${model}, analysis_model),
              analysis_reason = null,
              analysis_finished_at = now(),
              title = ${titleOf(items.map((item) => item.name))},
              ${sql.update(nutrients)},
              updated_at = now()
            where id = ${entryId} and analysis_status = 'Pending'
            returning id
          `
          if (updated.length === 0) return false
          yield* sql`delete from journal_items where entry_id = ${entryId}`
          yield* insertItems(entryId, items)
          return true
        }).pipe(sql.withTransaction, Effect.orDie),

      /** Ends a Pending analysis as Failed, keeping the reason. False when no longer Pending. */
      failAnalysis: (entryId: string, reason: string) =>
        sql<{ id: string }>`
          update journal_entries set
            analysis_status = 'Failed',
            analysis_reason = ${reason.slice(0, 1000)},
            analysis_finished_at = now(),
            updated_at = now()
          where id = ${entryId} and analysis_status = 'Pending'
          returning id
        `.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      /** Entries still waiting for their analysis (re-enqueued at start, in case a hand-off was lost). */
      pendingEntryIds: sql<{ id: string }>`
        select id from journal_entries where analysis_status = 'Pending' order by created_at
      `.pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie)
    } as const
  })
}) {}
