/**
 * Every SQL statement on the journal tables (`journal_entries`, `journal_items`, `journal_images`),
 * with the rows decoded by Schema. Reads on behalf of a user are scoped by the user's id, so an
 * entry of another user is not found. The rules (what an edit changes, when an analysis may end)
 * live in `Journal`; here are only the statements, and the conditional updates that make the end of
 * an analysis happen at most once (`where analysis_status = 'Pending'`).
 *
 * The tables hold no unique key a request can collide on (ids are generated here, one image per
 * entry is written once), so no unique violation is mapped: a failed statement is a defect.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import {
  AnalysisStatus,
  AnalyzerName,
  AppId,
  EntryKind,
  EntrySource,
  JournalEntryId,
  nutrientKeys,
  Nutrients,
  NutrientSource,
  UserId
} from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { newId } from "../platform/Ids.js"
import type { NutrientValues } from "./Nutrients.js"

/** A stored entry. Nutrient columns are nullable numbers, as in the contract's `Nutrients`. */
export const EntryRow = Schema.Struct({
  id: JournalEntryId,
  entryKind: EntryKind,
  entrySource: EntrySource,
  analysisStatus: AnalysisStatus,
  analyzer: Schema.NullOr(AnalyzerName),
  analysisModel: Schema.NullOr(Schema.String),
  analysisReason: Schema.NullOr(Schema.String),
  analysisFinishedAt: Schema.NullOr(Schema.DateFromSelf),
  title: Schema.String,
  notes: Schema.NullOr(Schema.String),
  consumedAtUtc: Schema.DateFromSelf,
  journalDate: Schema.String,
  timezone: Schema.String,
  isUserEdited: Schema.Boolean,
  ...Nutrients.fields,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type EntryRow = typeof EntryRow.Type

/** An entry in list form. */
export const SummaryRow = Schema.Struct({
  ...EntryRow.fields,
  itemCount: Schema.Int,
  hasImage: Schema.Boolean
})
export type SummaryRow = typeof SummaryRow.Type

export const ItemRow = Schema.Struct({
  id: Schema.String,
  entryId: Schema.String,
  name: Schema.String,
  category: Schema.String,
  quantity: Schema.Number,
  unit: Schema.String,
  estimatedWeightGrams: Schema.NullOr(Schema.Number),
  confidence: Schema.NullOr(Schema.Number),
  sortOrder: Schema.Int,
  nutrientSource: Schema.NullOr(NutrientSource),
  foodSourceId: Schema.NullOr(Schema.String),
  ...Nutrients.fields,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type ItemRow = typeof ItemRow.Type

export const ImageRow = Schema.Struct({
  id: Schema.String,
  entryId: Schema.String,
  storageProvider: Schema.String,
  storageKey: Schema.String,
  fileName: Schema.String,
  contentType: Schema.String,
  sizeBytes: Schema.Int,
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type ImageRow = typeof ImageRow.Type

/** What the analysis of an entry reads: the entry and, for a scan, where its photo is. */
export const SubjectRow = Schema.Struct({
  id: Schema.String,
  analysisStatus: AnalysisStatus,
  entryKind: EntryKind,
  notes: Schema.NullOr(Schema.String),
  storageKey: Schema.NullOr(Schema.String),
  contentType: Schema.NullOr(Schema.String)
})
export type SubjectRow = typeof SubjectRow.Type

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

export interface NewEntry {
  readonly id: string
  readonly appId: string
  readonly userId: UserId
  readonly entryKind: EntryKind
  readonly entrySource: EntrySource
  readonly analysisStatus: AnalysisStatus
  readonly analyzer?: AnalyzerName
  readonly analysisModel?: string | null
  readonly title: string
  readonly notes: string | null
  readonly consumedAtUtc: Date
  readonly journalDate: string
  readonly timezone: string
  readonly nutrients?: NutrientValues
}

export interface NewImage {
  readonly id: string
  readonly entryId: string
  readonly storageProvider: string
  readonly storageKey: string
  readonly fileName: string
  readonly contentType: string
  readonly sizeBytes: number
  readonly width: number | null
  readonly height: number | null
  readonly sha256: string
}

/** The columns a correction writes; it always marks the entry user-edited and bumps `updated_at`. */
export interface EntryEdit {
  readonly entryKind: EntryKind
  readonly title: string
  readonly notes: string | null
  readonly consumedAtUtc: Date
  readonly timezone: string
  readonly journalDate: string
  readonly analysisStatus: AnalysisStatus
  readonly analysisReason: string | null
  readonly analysisFinishedAt: Date | null
  readonly nutrients: NutrientValues
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

const entryColumns = `
  e.id, e.entry_kind, e.entry_source, e.analysis_status, e.analyzer, e.analysis_model, e.analysis_reason,
  e.analysis_finished_at, e.title, e.notes, e.consumed_at_utc, e.journal_date::text as journal_date, e.timezone,
  e.is_user_edited, ${nutrientKeys.map((k) => `e.${snake(k)}`).join(", ")},
  e.created_at, e.updated_at
`

const EntryKey = Schema.Struct({ userId: Schema.String, entryId: Schema.String })
const DateKey = Schema.Struct({ userId: Schema.String, date: Schema.String })
const Count = Schema.Struct({ count: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })

/** The entry whose analysis just ended, with whom its event goes to. */
const EndedAnalysis = Schema.Struct({ id: JournalEntryId, appId: AppId, userId: UserId })
export type EndedAnalysis = typeof EndedAnalysis.Type

export class JournalRepo extends Effect.Service<JournalRepo>()("@pulsebridge/server/JournalRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decodeEnded = Schema.decodeUnknown(Schema.Array(EndedAnalysis))
    const cols = sql.literal(entryColumns)

    const findEntry = SqlSchema.findOne({
      Request: EntryKey,
      Result: EntryRow,
      execute: ({ entryId, userId }) =>
        sql`select ${cols} from journal_entries e where e.id = ${entryId} and e.user_id = ${userId}`
    })

    const lockEntry = SqlSchema.findOne({
      Request: EntryKey,
      Result: EntryRow,
      execute: ({ entryId, userId }) =>
        sql`select ${cols} from journal_entries e where e.id = ${entryId} and e.user_id = ${userId} for update`
    })

    const itemsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: ItemRow,
      execute: (entryId) => sql`select * from journal_items where entry_id = ${entryId} order by sort_order`
    })

    const imageOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: ImageRow,
      execute: (entryId) => sql`select * from journal_images where entry_id = ${entryId}`
    })

    const countItems = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (entryId) => sql`select count(*)::int as count from journal_items where entry_id = ${entryId}`
    })

    const listByDate = SqlSchema.findAll({
      Request: DateKey,
      Result: SummaryRow,
      execute: ({ date, userId }) =>
        sql`
          select ${cols},
            (select count(*)::int from journal_items i where i.entry_id = e.id) as item_count,
            exists (select 1 from journal_images m where m.entry_id = e.id) as has_image
          from journal_entries e
          where e.user_id = ${userId} and e.journal_date = ${date}::date
          order by e.consumed_at_utc, e.created_at, e.id
        `
    })

    const listByRange = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String }),
      Result: SummaryRow,
      execute: ({ from, to, userId }) =>
        sql`
          select ${cols},
            (select count(*)::int from journal_items i where i.entry_id = e.id) as item_count,
            exists (select 1 from journal_images m where m.entry_id = e.id) as has_image
          from journal_entries e
          where e.user_id = ${userId} and e.journal_date between ${from}::date and ${to}::date
          order by e.consumed_at_utc, e.created_at, e.id
        `
    })

    // The export's pages: entries by id after a key, then the items and images of a page at once.
    const pageOfUser = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, after: Schema.NullOr(Schema.String), limit: Schema.Int }),
      Result: EntryRow,
      execute: ({ after, limit, userId }) =>
        sql`
          select ${cols} from journal_entries e
          where e.user_id = ${userId} ${after === null ? sql.literal("") : sql`and e.id > ${after}`}
          order by e.id limit ${limit}
        `
    })

    const itemsOfEntries = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: ItemRow,
      execute: (ids) => sql`select * from journal_items where ${sql.in("entry_id", ids)} order by entry_id, sort_order`
    })

    const imagesOfEntries = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: ImageRow,
      execute: (ids) => sql`select * from journal_images where ${sql.in("entry_id", ids)}`
    })

    const subject = SqlSchema.findOne({
      Request: Schema.String,
      Result: SubjectRow,
      execute: (entryId) =>
        sql`
          select e.id, e.analysis_status, e.entry_kind, e.notes, m.storage_key, m.content_type
          from journal_entries e left join journal_images m on m.entry_id = e.id
          where e.id = ${entryId}
        `
    })

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
      }`.pipe(Effect.asVoid)

    const replaceItems = (entryId: string, items: ReadonlyArray<NewItem>) =>
      sql`delete from journal_items where entry_id = ${entryId}`.pipe(Effect.zipRight(insertItems(entryId, items)))

    const pendingIds = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Id,
      execute: () => sql`select id from journal_entries where analysis_status = 'Pending' order by created_at`
    })

    return {
      findEntry: (userId: UserId, entryId: string) => findEntry({ userId, entryId }).pipe(Effect.orDie),

      /** The entry, locked until the end of the transaction (`for update`). */
      lockEntry: (userId: UserId, entryId: string) => lockEntry({ userId, entryId }).pipe(Effect.orDie),

      itemsOf: (entryId: string) => itemsOf(entryId).pipe(Effect.orDie),

      imageOf: (entryId: string) => imageOf(entryId).pipe(Effect.orDie),

      countItems: (entryId: string) => countItems(entryId).pipe(Effect.map((row) => row.count), Effect.orDie),

      listByDate: (userId: UserId, date: string) => listByDate({ userId, date }).pipe(Effect.orDie),

      /** The entries of the journal dates `from` to `to` (inclusive), in list form, by time. */
      listByRange: (userId: UserId, from: string, to: string) => listByRange({ userId, from, to }).pipe(Effect.orDie),

      /** Up to `limit` of the user's entries with ids after `after` (or from the first), by id. */
      pageOfUser: (userId: string, after: string | null, limit: number) =>
        pageOfUser({ userId, after, limit }).pipe(Effect.orDie),

      /** The items of these entries, each entry's in order. */
      itemsOfEntries: (ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.succeed([]) : itemsOfEntries(ids).pipe(Effect.orDie),

      /** The image metadata of these entries (those that have a photo). */
      imagesOfEntries: (ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.succeed([]) : imagesOfEntries(ids).pipe(Effect.orDie),

      insertEntry: (entry: NewEntry) => {
        const { nutrients, ...columns } = entry
        return sql`insert into journal_entries ${sql.insert({ ...columns, isUserEdited: false, ...nutrients })}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
      },

      insertImage: (image: NewImage) =>
        sql`insert into journal_images ${sql.insert({ ...image })}`.pipe(Effect.asVoid, Effect.orDie),

      /** Writes a correction; `updated_at` moves forward even within the same millisecond. */
      saveEdit: (entryId: string, edit: EntryEdit) =>
        sql`
          update journal_entries set
            entry_kind = ${edit.entryKind},
            title = ${edit.title},
            notes = ${edit.notes},
            consumed_at_utc = ${edit.consumedAtUtc},
            timezone = ${edit.timezone},
            journal_date = ${edit.journalDate}::date,
            is_user_edited = true,
            analysis_status = ${edit.analysisStatus},
            analysis_reason = ${edit.analysisReason},
            analysis_finished_at = ${edit.analysisFinishedAt},
            ${sql.update(edit.nutrients)},
            updated_at = greatest(now(), updated_at + interval '1 millisecond')
          where id = ${entryId}
        `.pipe(Effect.asVoid, Effect.orDie),

      /** Replaces every item of the entry (sort order = list order). */
      replaceItems: (entryId: string, items: ReadonlyArray<NewItem>) => replaceItems(entryId, items).pipe(Effect.orDie),

      subject: (entryId: string) => subject(entryId).pipe(Effect.orDie),

      /**
       * Marks a Pending analysis Completed with the entry's new title and nutrients. Its owner, or
       * none when the entry is no longer Pending; the caller replaces the items in the same transaction.
       */
      completePending: (
        entryId: string,
        result: { readonly title: string; readonly nutrients: NutrientValues; readonly model: string | null }
      ) =>
        sql`
          update journal_entries set
            analysis_status = 'Completed',
            analysis_model = coalesce(${result.model}, analysis_model),
            analysis_reason = null,
            analysis_finished_at = now(),
            title = ${result.title},
            ${sql.update(result.nutrients)},
            updated_at = now()
          where id = ${entryId} and analysis_status = 'Pending'
          returning id, app_id, user_id
        `.pipe(Effect.flatMap(decodeEnded), Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie),

      /** Marks a Pending analysis Failed with its reason. Its owner, or none when no longer Pending. */
      failPending: (entryId: string, reason: string) =>
        sql`
          update journal_entries set
            analysis_status = 'Failed',
            analysis_reason = ${reason},
            analysis_finished_at = now(),
            updated_at = now()
          where id = ${entryId} and analysis_status = 'Pending'
          returning id, app_id, user_id
        `.pipe(Effect.flatMap(decodeEnded), Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie),

      /** Entries still waiting for their analysis, oldest first. */
      pendingEntryIds: pendingIds(undefined).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie)
    } as const
  })
}) {}
