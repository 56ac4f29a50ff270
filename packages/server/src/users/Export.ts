/**
 * The export of a user (`GET /api/v1/users/{id}/export`): everything stored of the user as NDJSON,
 * one `{"type", "data"}` line per record, streamed page by page so memory stays flat whatever the
 * size. Lines come in this order: `user`, each `connection` (never a token or secret), each
 * canonical record type in turn (`dailyActivity`, `dailyLoad`, `sleepSession`, `recovery`,
 * `workout`, `profile`, `bodyMeasurement`, `glucoseReading`, `glucoseEvent`, `glucoseCalibration`),
 * each `journalEntry` with its items and image metadata, then each `dailyScore` (computed as the
 * scores endpoint computes them, in windows of the dates the user has data for). With `includeRaw`
 * each canonical record carries the provider's JSON as stored, as `raw`.
 *
 * The pages are separate reads, not one snapshot: a record synced while an export streams may or
 * may not be in it.
 */
import type { AppId, UserId } from "@pulsebridge/domain"
import { DailyScore, JournalEntry, User } from "@pulsebridge/domain"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { MealResponses } from "../insights/MealResponses.js"
import { JournalRepo } from "../journal/JournalRepo.js"
import { toEntry } from "../journal/Rows.js"
import { addDays } from "../platform/Calendar.js"
import { isUuid } from "../platform/Ids.js"
import { traced } from "../platform/Traced.js"
import { ScoreData } from "../scoring/ScoreData.js"
import type { RecordKey } from "./ExportRepo.js"
import { ExportRepo, recordTypes } from "./ExportRepo.js"
import { UserNotFound } from "./Users.js"
import { UsersRepo } from "./UsersRepo.js"

/** Rows per read: a page is one statement and one chunk of the response. */
export const ExportPageSize = 1000

/** Journal entries per read (each brings its items and image). */
const EntryPageSize = 200

/** Days of daily scores per computation (each reads its rows and the scoring lookback before them). */
const ScoreWindowDays = 60

const encoder = new TextEncoder()

const line = (type: string, data: unknown) => JSON.stringify({ type, data }) + "\n"

/** One chunk of the response from the lines of a page. */
const bytesOf = (lines: ReadonlyArray<string>) => Chunk.of(encoder.encode(lines.join("")))

/** The provider JSON as stored: parsed, or the text itself if it is not JSON. */
const parseRaw = (text: unknown) => {
  if (typeof text !== "string") return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** Reads page after page, each after the last key of the one before, until a short page. */
const paged = <Row, K>(
  read: (after: K | null) => Effect.Effect<ReadonlyArray<Row>>,
  keyOf: (row: Row) => K,
  pageSize: number,
  toLines: (rows: ReadonlyArray<Row>) => Effect.Effect<ReadonlyArray<string>>
) =>
  Stream.paginateChunkEffect(null as K | null, (after) =>
    Effect.gen(function*() {
      const rows = yield* read(after)
      const lines = yield* toLines(rows)
      const next = rows.length < pageSize ? Option.none() : Option.some(keyOf(rows[rows.length - 1]!))
      return [rows.length === 0 ? Chunk.empty<Uint8Array>() : bytesOf(lines), next] as const
    }))

/** Date windows of `days` days covering `first`..`last`, oldest first. */
const windows = (first: string, last: string, days: number) => {
  const out: Array<{ from: string; to: string }> = []
  for (let from = first; from <= last; from = addDays(from, days)) {
    const to = addDays(from, days - 1)
    out.push({ from, to: to < last ? to : last })
  }
  return out
}

export class UserExport extends Effect.Service<UserExport>()("@pulsebridge/server/UserExport", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const repo = yield* ExportRepo
    const journal = yield* JournalRepo
    const scores = yield* ScoreData
    const mealResponses = yield* MealResponses

    const encodeUser = Schema.encode(User)
    const encodeEntry = Schema.encode(JournalEntry)
    const encodeScore = Schema.encode(DailyScore)

    const records = (userId: string, includeRaw: boolean) =>
      Stream.fromIterable(recordTypes).pipe(
        Stream.flatMap(({ table, type }) =>
          paged(
            (after: RecordKey | null) => repo.recordPage(table, userId, after, ExportPageSize, includeRaw),
            (row) => ({ connectionId: String(row["connectionId"]), recordId: String(row["recordId"]) }),
            ExportPageSize,
            (rows) =>
              Effect.succeed(rows.map((row) => {
                if (!includeRaw) return line(type, row)
                const { rawJson, ...data } = row
                return line(type, { ...data, raw: parseRaw(rawJson) })
              }))
          )
        )
      )

    const entries = (userId: string) =>
      paged(
        (after: string | null) => journal.pageOfUser(userId, after, EntryPageSize),
        (row) => row.id as string,
        EntryPageSize,
        (rows) =>
          Effect.gen(function*() {
            const ids = rows.map((row) => row.id)
            const items = yield* journal.itemsOfEntries(ids)
            const images = yield* journal.imagesOfEntries(ids)
            // As endpoint 19 answers them: computed from the readings now, the whole page at once.
            const responses = yield* mealResponses.forEntries(userId as UserId, rows)
            return yield* Effect.forEach(rows, (row) =>
              Effect.map(
                encodeEntry(toEntry(
                  row,
                  items.filter((item) => item.entryId === row.id),
                  Option.fromNullable(images.find((image) => image.entryId === row.id)),
                  responses.get(row.id) ?? null
                )),
                (data) => line("journalEntry", data)
              ))
          }).pipe(Effect.orDie)
      )

    const dailyScores = (userId: string) =>
      Stream.unwrap(Effect.map(repo.dateSpan(userId), ({ first, last }) =>
        first === null || last === null
          ? Stream.empty
          : Stream.fromIterable(windows(first, last, ScoreWindowDays)).pipe(
            Stream.mapEffect((range) =>
              scores.daily(userId as UserId, range).pipe(
                // Answered most recent first, as the endpoint does; the export runs oldest first.
                Effect.flatMap((list) => Effect.forEach([...list].reverse(), (score) => encodeScore(score))),
                Effect.map((encoded) => encoded.map((data) => line("dailyScore", data))),
                Effect.orDie
              )
            ),
            Stream.filter((lines) => lines.length > 0),
            Stream.map((lines) => encoder.encode(lines.join("")))
          )))

    return {
      /**
       * The app's user's export as a stream of NDJSON bytes; fails with `UserNotFound` before
       * anything is streamed when the app has no such user (or it is being erased).
       */
      stream: traced("UserExport.stream")(function*(
        appId: AppId,
        userId: string,
        options: { readonly includeRaw: boolean }
      ) {
        const found = isUuid(userId) ? yield* users.findById(appId, userId) : Option.none()
        if (Option.isNone(found)) return yield* new UserNotFound({ userId })
        const user = found.value
        const head = Effect.gen(function*() {
          const encoded = yield* Effect.orDie(encodeUser(user))
          const connections = yield* repo.connections(user.id)
          return encoder.encode([line("user", encoded), ...connections.map((c) => line("connection", c))].join(""))
        })
        return Stream.concatAll(Chunk.make(
          Stream.fromEffect(head),
          records(user.id, options.includeRaw),
          entries(user.id),
          dailyScores(user.id)
        ))
      })
    } as const
  }),
  dependencies: [ExportRepo.Default, UsersRepo.Default, JournalRepo.Default, ScoreData.Default, MealResponses.Default]
}) {}
