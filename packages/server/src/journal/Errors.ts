/**
 * What can go wrong in the journal, named for what happened: an entry or its photo not found, a
 * correction the merge rules refuse, and an uploaded photo refused by `inspectImage`. The handlers
 * turn them into the contract's errors (`journal/Http.ts`, the portal's user pages).
 */
import * as Data from "effect/Data"

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
