/**
 * The nutrition journal of a user, its rules: manual entries, scans (the photo is checked, goes to
 * the `BlobStore`, the analysis to the `AnalysisQueue`), reads in full and list form, corrections
 * with their merge rules, and the two ends of an analysis. The statements are in `JournalRepo`;
 * every read on behalf of a user is scoped by the user's id, so an entry of another user is not
 * found.
 *
 * Ending an analysis is a conditional update (`where analysis_status = 'Pending'`) in one
 * transaction with its items: an edit that came first wins, and a re-run after a crash changes
 * nothing. An edit locks the entry first, so an analysis ending meanwhile waits for it. The
 * end that changes the entry writes its event (`journal.analysis.completed` or `.failed`) in that
 * same transaction; an edit that cancels a Pending analysis writes none (the app made it).
 */
import { SqlClient } from "@effect/sql"
import type {
  CreateJournalEntryPayload,
  EntryKind,
  GlucoseResponse,
  ItemInput,
  UpdateJournalEntryPayload,
  UserId
} from "@pulsebridge/domain"
import {
  AnalysisDetails,
  Image,
  Item,
  JournalEntry,
  JournalEntrySummary,
  MaxImageBytes,
  nutrientKeys
} from "@pulsebridge/domain"
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { imageSize } from "image-size"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import { Outbox } from "../events/Outbox.js"
import { MealResponses } from "../insights/MealResponses.js"
import { addDays, localDate } from "../platform/Calendar.js"
import { newId } from "../platform/Ids.js"
import type { JournalRow } from "../scoring/Intake.js"
import { caffeineOf, isMeal } from "../scoring/Intake.js"
import { AnalysisQueue } from "./AnalysisQueue.js"
import { BlobStore } from "./BlobStore.js"
import { checkImageStructure, type ImageKind } from "./ImageStructure.js"
import type { EntryRow, ImageRow, ItemRow, NewItem, SummaryRow } from "./JournalRepo.js"
import { JournalRepo } from "./JournalRepo.js"
import { MealAnalyzer } from "./MealAnalyzer.js"
import type { NutrientValues } from "./Nutrients.js"
import * as N from "./Nutrients.js"

export type { NewItem } from "./JournalRepo.js"

// ---- errors: what happened; the handlers turn them into the contract's errors ----

export class EntryNotFound extends Data.TaggedError("EntryNotFound")<{ readonly entryId: string }> {
  override get message() {
    return `no journal entry with id ${this.entryId}`
  }
}

/** The entry is not a scan: it has no photo. */
export class ImageNotFound extends Data.TaggedError("ImageNotFound")<{ readonly entryId: string }> {
  override get message() {
    return "this journal entry has no photo"
  }
}

/** The entry names a photo that the blob store no longer has. */
export class ImageBlobMissing extends Data.TaggedError("ImageBlobMissing")<{ readonly entryId: string }> {
  override get message() {
    return "the photo of this entry is missing"
  }
}

/** A correction set nutrients on an entry whose nutrients are the sum of its items. */
export class NutrientsOfItemizedEntry extends Data.TaggedError("NutrientsOfItemizedEntry")<{
  readonly entryId: string
}> {
  override get message() {
    return "nutrients can only be set on an entry without items; send the items with their nutrients"
  }
}

export class ImageEmpty extends Data.TaggedError("ImageEmpty")<{}> {
  override get message() {
    return "The image is empty"
  }
}

export class ImageTooLarge extends Data.TaggedError("ImageTooLarge")<{ readonly sizeBytes: number }> {
  override get message() {
    return "The image may be at most 10 MiB"
  }
}

/** The image is not a JPEG, PNG or WebP file; `detected` is what it is, when the reader knows the format. */
export class ImageTypeUnsupported extends Data.TaggedError("ImageTypeUnsupported")<{
  readonly recognised: boolean
  readonly detected: string | undefined
}> {
  override get message() {
    return this.recognised
      ? `The image must be a JPEG, PNG or WebP file, not ${this.detected ?? "an unknown type"}`
      : "The image must be a JPEG, PNG or WebP file"
  }
}

/** The file starts as a JPEG, PNG or WebP file but is not built as one (damaged, truncated or forged). */
export class ImageUnreadable extends Data.TaggedError("ImageUnreadable")<{
  readonly kind?: string
  readonly reason?: string
}> {
  override get message() {
    return this.kind === undefined || this.reason === undefined
      ? "The image could not be read: it is damaged or truncated"
      : `The image is not a valid ${this.kind} file: ${this.reason}`
  }
}

// ---- the rules ----

/** Who is asking: the user of the token. */
export interface JournalUser {
  readonly appId: string
  readonly userId: UserId
  readonly timezone: string
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
  readonly status: EntryRow["analysisStatus"]
  readonly entryKind: EntryKind
  readonly notes: string | null
  readonly image: Option.Option<{ readonly storageKey: string; readonly contentType: string }>
}

const nutrientsOf = (row: NutrientValues): NutrientValues =>
  Object.fromEntries(nutrientKeys.map((k) => [k, row[k]])) as any

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

/** An item of a correction: the user's own, with the nutrients the user gave (if any). */
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

/** The image types accepted for a scan, by what the file is (not what the client says it is). */
const imageTypes: Record<string, { readonly contentType: string; readonly extension: string }> = {
  jpg: { contentType: "image/jpeg", extension: "jpg" },
  png: { contentType: "image/png", extension: "png" },
  webp: { contentType: "image/webp", extension: "webp" }
}

/** Reads an uploaded photo: its type (by content) and its dimensions. */
export const inspectImage = (bytes: Uint8Array) => {
  if (bytes.length === 0) return Effect.fail(new ImageEmpty())
  if (bytes.length > MaxImageBytes) return Effect.fail(new ImageTooLarge({ sizeBytes: bytes.length }))
  let size: ReturnType<typeof imageSize>
  try {
    size = imageSize(bytes)
  } catch (e) {
    const message = (e as Error).message
    return Effect.fail(
      message.startsWith("unsupported file type")
        ? new ImageTypeUnsupported({ recognised: false, detected: undefined })
        : new ImageUnreadable({})
    )
  }
  const type = size.type === undefined ? undefined : imageTypes[size.type]
  if (type === undefined) return Effect.fail(new ImageTypeUnsupported({ recognised: true, detected: size.type }))
  const structure = checkImageStructure(size.type as ImageKind, bytes)
  if (structure._tag === "Invalid") {
    return Effect.fail(new ImageUnreadable({ kind: type.extension.toUpperCase(), reason: structure.reason }))
  }
  return Effect.succeed({ ...type, width: structure.shape.width, height: structure.shape.height })
}

// ---- rows to the contract ----

const toItem = (row: ItemRow) =>
  Item.make({
    id: row.id,
    name: row.name,
    category: row.category,
    quantity: row.quantity,
    unit: row.unit,
    estimatedWeightGrams: row.estimatedWeightGrams,
    nutrients: N.toNutrients(nutrientsOf(row)),
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
  nutrients: N.toNutrients(nutrientsOf(row)),
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

export class Journal extends Effect.Service<Journal>()("@pulsebridge/server/Journal", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* JournalRepo
    const blobs = yield* BlobStore
    const queue = yield* AnalysisQueue
    const analyzer = yield* MealAnalyzer
    const outbox = yield* Outbox
    const mealResponses = yield* MealResponses

    const requireRow = (userId: UserId, entryId: string) =>
      Effect.flatMap(
        repo.findEntry(userId, entryId),
        Option.match({ onNone: () => Effect.fail(new EntryNotFound({ entryId })), onSome: Effect.succeed })
      )

    /**
     * `scores.updated` for the days whose scores an entry's caffeine or meal can move, before and after a change
     * (`scoring/Intake.ts` reads the 24 h before each night's sleep onset): the nights that end from the day before
     * its journal date (another time zone) to two days after it (an evening coffee counts for a sleep that starts
     * the next evening). Entries the sleep score does not read (water, a drink without caffeine) move nothing.
     */
    const emitScoreInputs = (
      appId: string,
      userId: UserId,
      entries: ReadonlyArray<JournalRow & { readonly journalDate: string }>
    ) => {
      const dates = new Set<string>()
      for (const entry of entries) {
        if (caffeineOf(entry) === null && !isMeal(entry)) continue
        for (let offset = -1; offset <= 2; offset++) dates.add(addDays(entry.journalDate, offset))
      }
      return dates.size === 0 ? Effect.void : outbox.emit({
        appId,
        userId,
        type: "scores.updated",
        data: { userId, dates: Array.from(dates).sort() }
      })
    }

    /** The entry with its items, photo metadata and glucose response (computed from the readings now). */
    const load = (userId: UserId, row: EntryRow) =>
      Effect.map(
        Effect.all([repo.itemsOf(row.id), repo.imageOf(row.id), mealResponses.forEntries(userId, [row])]),
        ([items, image, responses]) => toEntry(row, items, image, responses.get(row.id) ?? null)
      )

    /** An entry just written by this request: it is there. */
    const reload = (userId: UserId, entryId: string) =>
      Effect.flatMap(repo.findEntry(userId, entryId), (row) => load(userId, Option.getOrThrow(row)))

    /** A manual entry (endpoint 16). */
    const create = Effect.fn("Journal.create")(function*(user: JournalUser, payload: CreateJournalEntryPayload) {
      const timezone = payload.timezone ?? user.timezone
      const id = newId()
      const entry = {
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
        nutrients: N.fromInput(payload.nutrients)
      } as const
      yield* Effect.zipRight(
        repo.insertEntry(entry),
        emitScoreInputs(user.appId, user.userId, [{ ...entry, ...entry.nutrients }])
      ).pipe(sql.withTransaction, Effect.orDie)
      return yield* reload(user.userId, id)
    })

    /**
     * A scan (endpoint 17): checks the photo, stores it, records the Pending entry and hands it to
     * the analysis. Nothing is stored when the photo is refused.
     */
    const createScan = Effect.fn("Journal.createScan")(function*(user: JournalUser, upload: ScanUpload) {
      const buffer = yield* Effect.promise(() => fs.readFile(upload.path))
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      const image = yield* inspectImage(bytes)
      const entryKind = upload.entryKind ?? "Meal"
      const consumedAt = upload.consumedAtUtc ?? DateTime.toDateUtc(yield* DateTime.now)
      const timezone = upload.timezone ?? user.timezone
      const entryId = newId()
      const imageId = newId()
      const storageKey = `journal/${user.userId}/${imageId}.${image.extension}`
      yield* blobs.put(storageKey, bytes)
      const fileName = upload.fileName.trim() === "" ? `photo.${image.extension}` : upload.fileName.slice(0, 255)
      yield* Effect.all([
        repo.insertEntry({
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
          timezone
        }),
        repo.insertImage({
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
        }),
        emitScoreInputs(user.appId, user.userId, [{
          entryKind,
          consumedAtUtc: consumedAt,
          journalDate: localDate(consumedAt, timezone),
          ...N.emptyNutrients
        }])
      ], { discard: true }).pipe(
        sql.withTransaction,
        Effect.tapErrorCause(() => blobs.remove(storageKey)),
        Effect.orDie
      )
      // After the commit: the queue talks to the database on its own connection.
      yield* queue.enqueue(entryId)
      return yield* reload(user.userId, entryId)
    })

    /** The entries of one journal date, in list form (endpoint 18). */
    const list = Effect.fn("Journal.list")(function*(user: JournalUser, date: string) {
      return (yield* repo.listByDate(user.userId, date)).map(toSummary)
    })

    /** The entries of the journal dates `from` to `to`, in list form (the portal's user page). */
    const listRange = Effect.fn("Journal.listRange")(function*(userId: UserId, from: string, to: string) {
      return (yield* repo.listByRange(userId, from, to)).map(toSummary)
    })

    /** One entry in full (endpoint 19). */
    const get = Effect.fn("Journal.get")(function*(user: JournalUser, entryId: string) {
      return yield* load(user.userId, yield* requireRow(user.userId, entryId))
    })

    /** The stored photo of an entry. */
    const image = Effect.fn("Journal.image")(function*(user: JournalUser, entryId: string) {
      yield* requireRow(user.userId, entryId)
      const row = yield* repo.imageOf(entryId)
      if (Option.isNone(row)) return yield* new ImageNotFound({ entryId })
      const bytes = yield* blobs.get(row.value.storageKey).pipe(
        Effect.catchTag("BlobNotFound", () => new ImageBlobMissing({ entryId }))
      )
      return { bytes, contentType: row.value.contentType, fileName: row.value.fileName }
    })

    /** A correction (endpoint 20), with the merge rules of the journal. */
    const update = Effect.fn("Journal.update")(
      function*(user: JournalUser, entryId: string, payload: UpdateJournalEntryPayload) {
        // The row lock makes a concurrent end of the analysis wait for this edit, then find it not Pending.
        const current = yield* Effect.flatMap(
          repo.lockEntry(user.userId, entryId),
          Option.match({ onNone: () => Effect.fail(new EntryNotFound({ entryId })), onSome: Effect.succeed })
        )
        const items = payload.items?.map(fromInput)
        const itemCount = items !== undefined ? items.length : yield* repo.countItems(entryId)
        if (payload.nutrients !== undefined && itemCount > 0) {
          return yield* new NutrientsOfItemizedEntry({ entryId })
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
        yield* repo.saveEdit(entryId, {
          entryKind: payload.entryKind ?? current.entryKind,
          title,
          notes: payload.notes === undefined ? current.notes : payload.notes,
          consumedAtUtc: consumedAt,
          timezone,
          journalDate: localDate(consumedAt, timezone),
          analysisStatus: cancels ? "None" : current.analysisStatus,
          analysisReason: cancels ? cancelledReason : current.analysisReason,
          analysisFinishedAt: cancels ? DateTime.toDateUtc(yield* DateTime.now) : current.analysisFinishedAt,
          nutrients
        })
        if (items !== undefined) yield* repo.replaceItems(entryId, items)
        const saved = yield* reload(user.userId, entryId)
        yield* emitScoreInputs(user.appId, user.userId, [current, {
          entryKind: saved.entryKind,
          consumedAtUtc: consumedAt,
          journalDate: localDate(consumedAt, timezone),
          ...nutrients
        }])
        return saved
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /** What the analysis of `entryId` reads; none when the entry is gone. */
    const subject = Effect.fn("Journal.subject")(function*(entryId: string) {
      return Option.map(yield* repo.subject(entryId), (row): AnalysisSubject => ({
        entryId: row.id,
        status: row.analysisStatus,
        entryKind: row.entryKind,
        notes: row.notes,
        image: row.storageKey === null
          ? Option.none()
          : Option.some({ storageKey: row.storageKey, contentType: row.contentType ?? "application/octet-stream" })
      }))
    })

    /**
     * Ends a Pending analysis with its items: entry nutrients are their sum and the title names them.
     * False when the entry is no longer Pending (an edit won, or this ran already).
     */
    const completeAnalysis = Effect.fn("Journal.completeAnalysis")(
      function*(entryId: string, items: ReadonlyArray<NewItem>, model: string | null) {
        const completed = yield* repo.completePending(entryId, {
          title: titleOf(items.map((item) => item.name)),
          nutrients: N.sum(items.map((item) => item.nutrients)),
          model
        })
        if (Option.isNone(completed)) return false
        yield* repo.replaceItems(entryId, items)
        const { appId, userId } = completed.value
        const row = yield* repo.findEntry(userId, entryId)
        if (Option.isSome(row)) yield* emitScoreInputs(appId, userId, [row.value])
        yield* outbox.emit({
          appId,
          userId,
          type: "journal.analysis.completed",
          data: { userId, entryId: completed.value.id }
        })
        return true
      },
      sql.withTransaction,
      Effect.orDie
    )

    /** Ends a Pending analysis as Failed, keeping the reason. False when no longer Pending. */
    const failAnalysis = Effect.fn("Journal.failAnalysis")(
      function*(entryId: string, reason: string) {
        const kept = reason.slice(0, 1000)
        const failed = yield* repo.failPending(entryId, kept)
        if (Option.isNone(failed)) return false
        const { appId, userId } = failed.value
        yield* outbox.emit({
          appId,
          userId,
          type: "journal.analysis.failed",
          data: { userId, entryId: failed.value.id, reason: kept }
        })
        return true
      },
      sql.withTransaction,
      Effect.orDie
    )

    return {
      create,
      createScan,
      list,
      listRange,
      get,
      image,
      update,
      subject,
      /** The photo bytes of an analysis subject. */
      photo: (storageKey: string) => blobs.get(storageKey),
      completeAnalysis,
      failAnalysis,
      /** Entries still waiting for their analysis (re-enqueued at start, in case a hand-off was lost). */
      pendingEntryIds: repo.pendingEntryIds.pipe(Effect.withSpan("Journal.pendingEntryIds"))
    } as const
  }),
  dependencies: [JournalRepo.Default, Outbox.Default, MealResponses.Default]
}) {}
