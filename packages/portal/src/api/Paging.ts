/** The cursor and page size of the portal's paged lists (the audit log, an app's users). */
import * as Schema from "effect/Schema"

export const PageCursor = Schema.String.pipe(Schema.maxLength(200))
export const PageLimit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200))
