/**
 * PROVISIONAL: record-by-record decoding until the shared `decodeEach` lands in `Shared.ts`.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export interface QuarantinedRecord {
  readonly kind: string
  readonly providerRecordId: string | null
  readonly reason: string
  readonly rawJson: string
}

const defaultIdOf = (raw: unknown): string | null => {
  if (typeof raw !== "object" || raw === null) return null
  for (const key of ["id", "summaryId", "recordId"]) {
    const value = (raw as Record<string, unknown>)[key]
    if (typeof value === "string" || typeof value === "number") return String(value)
  }
  return null
}

export const decodeEach = <A, I, R>(options: {
  readonly kind: string
  readonly schema: Schema.Schema<A, I>
  readonly items: ReadonlyArray<unknown>
  readonly normalise: (decoded: A, raw: unknown) => R
  readonly idOf?: (raw: unknown) => string | null
}): { readonly records: ReadonlyArray<R>; readonly quarantined: ReadonlyArray<QuarantinedRecord> } => {
  const decode = Schema.decodeUnknownEither(options.schema)
  const idOf = options.idOf ?? defaultIdOf
  const records: Array<R> = []
  const quarantined: Array<QuarantinedRecord> = []
  for (const raw of options.items) {
    const quarantine = (reason: string) =>
      quarantined.push({ kind: options.kind, providerRecordId: idOf(raw), reason, rawJson: JSON.stringify(raw) })
    const decoded = decode(raw)
    if (Either.isLeft(decoded)) {
      quarantine(ParseResult.TreeFormatter.formatErrorSync(decoded.left).slice(0, 300))
      continue
    }
    try {
      records.push(options.normalise(decoded.right, raw))
    } catch (error) {
      quarantine(error instanceof Error ? error.message : "the record could not be normalised")
    }
  }
  return { records, quarantined }
}
