/**
 * Ids: UUIDs generated here; ids from outside are checked before they reach SQL.
 */
import * as crypto from "node:crypto"

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (s: string): boolean => uuidPattern.test(s)

export const newId = <A extends string = string>(): A => crypto.randomUUID() as A
