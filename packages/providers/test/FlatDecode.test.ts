/**
 * The fast path of record decoding (`internal/FlatDecode.ts`) against the schema's own decoding: for every input it
 * answers, the schema accepts the input and decodes it to the same record; it answers every well-formed record of the
 * flat schemas it takes; and it takes no schema whose decoding it could not match.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { DexcomCalibrationOfPage, DexcomEgvOfPage, DexcomEventOfPage } from "../src/dexcom/Normalise.js"
import { flatDecoder } from "../src/internal/FlatDecode.js"
import { keepUnknownFields } from "../src/Shared.js"

const Flat = Schema.Struct({
  id: Schema.NonEmptyString,
  kind: Schema.Literal("a", "b"),
  value: Schema.NullOr(Schema.Number),
  done: Schema.optional(Schema.Boolean),
  note: Schema.optional(Schema.NullOr(Schema.String)),
  extra: Schema.Unknown
})

const flatRecord = { id: "x", kind: "a", value: 1, extra: [1] }
const dexcomTimes = { systemTime: "2026-11-28T09:55:00", displayTime: "2026-11-28T10:55:00+01:00" }

/** Each schema with one record it accepts, which the generated records start from. */
const schemas: ReadonlyArray<readonly [string, Schema.Schema<unknown, unknown>, Record<string, unknown>]> = [
  ["flat", Flat as Schema.Schema<unknown, unknown>, flatRecord],
  ["flat, keeping unknown fields", Flat.annotations(keepUnknownFields) as Schema.Schema<unknown, unknown>, flatRecord],
  ["Dexcom reading", DexcomEgvOfPage as Schema.Schema<unknown, unknown>, {
    recordId: "r1",
    ...dexcomTimes,
    value: 104,
    unit: "mg/dL",
    rateUnit: "mg/dL/min"
  }],
  ["Dexcom event", DexcomEventOfPage as Schema.Schema<unknown, unknown>, {
    recordId: "e1",
    ...dexcomTimes,
    eventType: "carbs"
  }],
  ["Dexcom calibration", DexcomCalibrationOfPage as Schema.Schema<unknown, unknown>, {
    recordId: "c1",
    ...dexcomTimes,
    value: 100,
    unit: "mg/dL"
  }]
]

/** Values of every kind the schemas above take or refuse. */
const anyValue = fc.oneof(
  fc.constantFrom("", "a", "b", "mg/dL", "2026-11-28T10:00:00", null, undefined, 0, -1, 1.5, Number.NaN, true, false),
  fc.string(),
  fc.double(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 })
)

/**
 * Records made from one the schema accepts: some of its fields (and of the schema's others, and unknown ones) set to
 * any value or removed; and now and then no record at all.
 */
const records = (names: ReadonlyArray<string>, base: Record<string, unknown>) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.array(
        fc.tuple(fc.constantFrom(...names, "unknown", "other"), fc.option(anyValue, { nil: undefined, freq: 4 })),
        { maxLength: 3 }
      ).map((changes) => {
        const record: Record<string, unknown> = { ...base }
        for (const [name, value] of changes) {
          // `fc.option` gives undefined for about one change in four: that field is removed.
          if (value === undefined) delete record[name]
          else record[name] = value
        }
        return record
      })
    },
    { weight: 1, arbitrary: anyValue }
  )

const fieldNames = (schema: Schema.Schema.Any) =>
  schema.ast._tag === "TypeLiteral"
    ? schema.ast.propertySignatures.map((signature) => String(signature.name))
    : []

describe("flatDecoder", () => {
  for (const [name, schema, base] of schemas) {
    it(`${name}: answers exactly the records the schema accepts, with the schema's own record`, () => {
      const fast = flatDecoder(schema)
      expect(fast).toBeDefined()
      const decode = Schema.decodeUnknownEither(schema)
      const answered = { fast: 0, accepted: 0 }
      fc.assert(
        fc.property(records(fieldNames(schema), base), (input) => {
          const quick = fast!(input)
          const slow = decode(input)
          if (quick !== undefined) {
            answered.fast++
            expect(Either.isRight(slow)).toBe(true)
            expect(quick).toStrictEqual(Either.getOrThrow(slow))
          }
          if (Either.isRight(slow)) {
            answered.accepted++
            expect(quick).toBeDefined()
          }
        }),
        { numRuns: 2000, seed: 20261128 }
      )
      // Both kinds of input were tried: records the schema accepts and records it refuses.
      expect(answered.accepted).toBeGreaterThan(200)
      expect(answered.accepted).toBeLessThan(1900)
    })
  }

  it("answers a well-formed reading as the schema decodes it, and leaves a malformed one to the schema", () => {
    const fast = flatDecoder(DexcomEgvOfPage)!
    const reading = {
      recordId: "3c1f5e6a-0000-4000-8000-000000000001",
      systemTime: "2026-11-28T09:55:00",
      displayTime: "2026-11-28T10:55:00+01:00",
      transmitterId: "abc",
      transmitterTicks: 123,
      value: 104,
      status: null,
      trend: "flat",
      trendRate: 0,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      displayDevice: "iOS",
      somethingNew: { nested: true }
    }
    expect(fast(reading)).toStrictEqual(Either.getOrThrow(Schema.decodeUnknownEither(DexcomEgvOfPage)(reading)))
    expect(fast({ ...reading, value: null })).toBeDefined()
    expect(fast({ ...reading, recordId: "" })).toBeUndefined()
    const { unit: _unit, ...withoutUnit } = reading
    expect(fast(withoutUnit)).toBeUndefined()
    expect(fast([reading])).toBeUndefined()
  })

  it("takes no schema whose decoding transforms, nests or refines the whole record", () => {
    const refusedSchemas: ReadonlyArray<Schema.Schema.Any> = [
      Schema.Struct({ at: Schema.DateFromString }),
      Schema.Struct({ inner: Schema.Struct({ a: Schema.String }) }),
      Schema.Struct({ a: Schema.String }).pipe(Schema.filter((record) => record.a !== "")),
      Schema.Struct({ a: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Number })),
      Schema.Struct({ a: Schema.String }).annotations({ parseOptions: { onExcessProperty: "error" } }),
      Schema.Struct({ a: Schema.Array(Schema.String) }),
      Schema.String
    ]
    for (const schema of refusedSchemas) {
      expect(flatDecoder(schema as Schema.Schema<unknown, unknown>), String(schema.ast)).toBeUndefined()
    }
  })
})
