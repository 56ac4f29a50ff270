/**
 * `pulsebridge token-exchange`: moves the connections still holding OAuth 1.0a tokens to OAuth 2.0
 * now, for the apps whose credentials are OAuth 2.0 ones that can exchange tokens (Garmin), and
 * reports each connection: migrated, failed (with the reason), or skipped (with the reason). The
 * server does the same on its own every hour; this is the operator's "now".
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { AppId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { printResult } from "../Output.js"
import { json } from "./Options.js"
import { requireApp, withServices } from "./Runtime.js"

export const tokenExchange = Command.make(
  "token-exchange",
  {
    app: Options.text("app").pipe(Options.optional, Options.withDescription("Only the connections of this app")),
    json
  },
  (input) =>
    Effect.gen(function*() {
      const appId: AppId | undefined = Option.isSome(input.app) ? yield* requireApp(input.app.value) : undefined
      const { exchangeTokens } = yield* Effect.promise(() => import("./Outbound.js"))
      const { results, text } = yield* exchangeTokens(appId)
      yield* printResult(input.json, { results }, () => text)
    }).pipe(withServices(input.json))
).pipe(
  Command.withDescription(
    "Exchange the OAuth 1.0a tokens of connections for OAuth 2.0 ones now (apps with OAuth 2.0 credentials), " +
      "and report each connection"
  )
)
