/**
 * The options several commands share (`--json`, `--app`, the user id argument, the user fields)
 * and how their input is decoded: with the API's own payload schemas, so the CLI accepts exactly
 * what the API accepts and names the offending option when it does not.
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import { BadRequest } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export const json = Options.boolean("json").pipe(
  Options.withDescription("Print exactly one JSON object on stdout (errors as {\"error\": {\"_tag\", \"message\"}})")
)

export const appId = Options.text("app").pipe(Options.withDescription("Id of the app"))

export const userId = Args.text({ name: "USER_ID" }).pipe(Args.withDescription("Id of the user"))

export const locale = Options.text("locale").pipe(Options.optional, Options.withDescription("Language tag, e.g. en-US"))

export const timezone = Options.text("timezone").pipe(
  Options.optional,
  Options.withDescription("IANA time zone name, e.g. Europe/Berlin")
)

export const metadata = Options.text("metadata").pipe(
  Options.optional,
  Options.withDescription("A JSON object of the app's own data (at most 16 KiB); replaces the stored metadata")
)

const optionNames: Record<string, string> = {
  externalUserId: "--external-user-id",
  locale: "--locale",
  timezone: "--timezone",
  metadata: "--metadata"
}

// An optional field fails both members of its `A | undefined` union; the first issue of a field is the one to show.
const formatParseError = (error: ParseResult.ParseError): string => {
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const key = issue.path.map(String).join(".")
    if (seen.has(key)) continue
    seen.add(key)
    const field = issue.path[0]
    const name = field === undefined ? undefined : (optionNames[String(field)] ?? String(field))
    lines.push(name === undefined ? issue.message : `invalid ${name}: ${issue.message}`)
  }
  return lines.join("; ")
}

/** Decodes CLI input with the API's own payload schema, so the CLI accepts exactly what the API accepts. */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Effect.mapError((error) => new BadRequest({ message: formatParseError(error) }))
  )

export const parseMetadata = (text: Option.Option<string>) =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (raw) =>
      Effect.try({
        try: () => JSON.parse(raw) as unknown,
        catch: (cause) => new BadRequest({ message: `--metadata must be a JSON object: ${(cause as Error).message}` })
      })
  })

/** The fields that were given, as an object without keys for the absent ones (as a JSON body would be). */
export const given = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
