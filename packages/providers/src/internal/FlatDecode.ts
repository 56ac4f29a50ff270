/**
 * A faster way through `Schema.decodeUnknownEither` for the commonest provider record: a flat struct of plain values
 * (strings, numbers, booleans, literals, `null`, their unions and refinements, optional or not), such as a Dexcom
 * reading. Effect's parser builds an output object, an `Either` and a parse step for each field of each record; a
 * year of readings is some 105,000 records, and that work and its garbage were the larger part of decoding them.
 *
 * The check here answers only when the schema's own decoding would succeed, and then with what it would give (the
 * same values, none transformed: the schema has no transformation); for anything else it answers `undefined` and
 * the caller decodes with the schema, which also names what failed. So a record decodes the same either way, only
 * faster when it is well formed. A schema of any other shape (a transformation, a nested struct, an index
 * signature, a refinement of the whole struct, parse options other than keeping unknown fields) gets no fast path.
 */
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

type Check = (value: unknown) => boolean

/** A check that accepts exactly what the node's parser accepts, without transforming it; none for other nodes. */
const checkOf = (ast: AST.AST): Check | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return (value) => typeof value === "string"
    case "NumberKeyword":
      return (value) => typeof value === "number"
    case "BooleanKeyword":
      return (value) => typeof value === "boolean"
    case "UndefinedKeyword":
      return (value) => value === undefined
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "Literal": {
      const literal = ast.literal
      return (value) => value === literal
    }
    case "Union": {
      const checks: Array<Check> = []
      for (const member of ast.types) {
        const check = checkOf(member)
        if (check === undefined) return undefined
        checks.push(check)
      }
      return (value) => {
        for (const check of checks) if (check(value)) return true
        return false
      }
    }
    case "Refinement": {
      const from = checkOf(ast.from)
      if (from === undefined) return undefined
      return (value) => from(value) && Option.isNone(ast.filter(value, {}, ast))
    }
    default:
      return undefined
  }
}

interface Field {
  readonly name: string
  readonly optional: boolean
  readonly check: Check
}

/**
 * The fast decoding of `schema` when it is a flat struct of plain values: the decoded record for a record the
 * schema accepts, `undefined` for any other (decode that one with the schema); none for a schema of another shape.
 */
export const flatDecoder = <A, I>(schema: Schema.Schema<A, I>): ((input: unknown) => A | undefined) | undefined => {
  const ast = schema.ast
  if (ast._tag !== "TypeLiteral" || ast.indexSignatures.length > 0) return undefined
  const options = Option.getOrUndefined(AST.getParseOptionsAnnotation(ast))
  if (options !== undefined && Object.keys(options).some((key) => key !== "onExcessProperty")) return undefined
  if (options?.onExcessProperty === "error") return undefined
  // As the schema's parser does: unknown fields dropped, or kept as they are (`keepUnknownFields`).
  const preserve = options?.onExcessProperty === "preserve"
  const fields: Array<Field> = []
  for (const signature of ast.propertySignatures) {
    if (typeof signature.name !== "string") return undefined
    const check = checkOf(signature.type)
    if (check === undefined) return undefined
    fields.push({ name: signature.name, optional: signature.isOptional, check })
  }
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined
    const record = input as Record<string, unknown>
    const output: Record<string, unknown> = preserve ? { ...record } : {}
    for (const field of fields) {
      const present = Object.prototype.hasOwnProperty.call(record, field.name)
      // A missing optional field stays missing; a missing required one is read as `undefined`, as the schema does.
      if (!present && field.optional) continue
      const value = present ? record[field.name] : undefined
      if (!field.check(value)) return undefined
      if (!preserve || !present) output[field.name] = value
    }
    return output as A
  }
}
