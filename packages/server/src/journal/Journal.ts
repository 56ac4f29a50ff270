/**
 * The nutrition journal of a user, its rules: manual entries, scans (the photo is checked, goes to
 * the `BlobStore`, the analysis to the `AnalysisQueue`), reads in full and list form, corrections
 * with their merge rules, and the two ends of an analysis. The statements are in `JournalRepo`,
 * the pure rules in `Rules`, the rows' shapes in the contract in `Rows`; every read on behalf of a
 * user is scoped by the user's id, so an entry of another user is not found.
 *
 * Ending an analysis is a conditional update (`where analysis_status = 'Pending'`) in one
 * transaction with its items: an edit that came first wins, and a re-run after a crash changes
 * nothing. An edit locks the entry first, so an analysis ending meanwhile waits for it. The
 * end that changes the entry writes its event (`journal.analysis.completed` or `.failed`) in that
 * same transaction; an edit that cancels a Pending analysis writes none (the app made it).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { CreateJournalEntryPayload, EntryKind, UpdateJournalEntryPayload, UserId } from "@pulsebridge/domain"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import { Outbox } from "../events/Outbox.js"
import { MealResponses } from "../insights/MealResponses.js"
import { localDate } from "../platform/Calendar.js"
import { newId } from "../platform/Ids.js"
import { traced } from "../platform/Traced.js"
import type { JournalRow } from "../scoring/Intake.js"
import { AnalysisQueue } from "./AnalysisQueue.js"
import { BlobStore } from "./BlobStore.js"
import { EntryNotFound, ImageBlobMissing, ImageNotFound, NutrientsOfItemizedEntry } from "./Errors.js"
import type { EntryRow, NewItem } from "./JournalRepo.js"
import { JournalRepo } from "./JournalRepo.js"
import { MealAnalyzer } from "./MealAnalyzer.js"
import * as N from "./Nutrients.js"
import { toEntry, toSubject, toSummary } from "./Rows.js"
import {
  cancelledReason,
  defaultTitle,
  inspectImage,
  itemFromInput,
  mergeCorrection,
  photoTitle,
  scoreDatesOf,
  storedFileName,
  titleOf
} from "./Rules.js"

export type { NewItem } from "./JournalRepo.js"
export type { AnalysisSubject } from "./Rows.js"

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

    /** `scores.updated` for the days whose scores an entry can move (`scoreDatesOf`), before and after a change. */
    const emitScoreInputs = (
      appId: string,
      userId: UserId,
      entries: ReadonlyArray<JournalRow & { readonly journalDate: string }>
    ) => {
      const dates = scoreDatesOf(entries)
      return dates.length === 0 ? Effect.void : outbox.emit({
        appId,
        userId,
        type: "scores.updated",
        data: { userId, dates }
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
    const create = traced("Journal.create")(function*(user: JournalUser, payload: CreateJournalEntryPayload) {
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
    const createScan = traced("Journal.createScan")(function*(user: JournalUser, upload: ScanUpload) {
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
      const fileName = storedFileName(upload.fileName, image.extension)
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
    const list = traced("Journal.list")(function*(user: JournalUser, date: string) {
      return (yield* repo.listByDate(user.userId, date)).map(toSummary)
    })

    /** The entries of the journal dates `from` to `to`, in list form (the portal's user page). */
    const listRange = traced("Journal.listRange")(function*(userId: UserId, from: string, to: string) {
      return (yield* repo.listByRange(userId, from, to)).map(toSummary)
    })

    /** One entry in full (endpoint 19). */
    const get = traced("Journal.get")(function*(user: JournalUser, entryId: string) {
      return yield* load(user.userId, yield* requireRow(user.userId, entryId))
    })

    /** The stored photo of an entry. */
    const image = traced("Journal.image")(function*(user: JournalUser, entryId: string) {
      yield* requireRow(user.userId, entryId)
      const row = yield* repo.imageOf(entryId)
      if (Option.isNone(row)) return yield* new ImageNotFound({ entryId })
      const bytes = yield* blobs.get(row.value.storageKey).pipe(
        Effect.catchTag("BlobNotFound", () => new ImageBlobMissing({ entryId }))
      )
      return { bytes, contentType: row.value.contentType, fileName: row.value.fileName }
    })

    /** A correction (endpoint 20), with the merge rules of the journal. */
    const update = traced("Journal.update")(
      function*(user: JournalUser, entryId: string, payload: UpdateJournalEntryPayload) {
        // The row lock makes a concurrent end of the analysis wait for this edit, then find it not Pending.
        const current = yield* Effect.flatMap(
          repo.lockEntry(user.userId, entryId),
          Option.match({ onNone: () => Effect.fail(new EntryNotFound({ entryId })), onSome: Effect.succeed })
        )
        const items = payload.items?.map(itemFromInput)
        const itemCount = items !== undefined ? items.length : yield* repo.countItems(entryId)
        if (payload.nutrients !== undefined && itemCount > 0) {
          return yield* new NutrientsOfItemizedEntry({ entryId })
        }
        const { nutrients, title } = mergeCorrection(
          { title: current.title, nutrients: N.nutrientsOf(current) },
          payload,
          items
        )
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
    const subject = traced("Journal.subject")(function*(entryId: string) {
      return Option.map(yield* repo.subject(entryId), toSubject)
    })

    /**
     * Ends a Pending analysis with its items: entry nutrients are their sum and the title names them.
     * False when the entry is no longer Pending (an edit won, or this ran already).
     */
    const completeAnalysis = traced("Journal.completeAnalysis")(
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
    const failAnalysis = traced("Journal.failAnalysis")(
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
