/**
 * Handlers of the OAuth callbacks (endpoints 23-24): a redirect to the app, or a 400 JSON
 * error when no connect session is known to redirect to.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Api, BadRequest } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { onlyServices } from "../platform/GroupContext.js"
import type { CallbackOutcome } from "./ConnectFlow.js"
import { ConnectFlow } from "./ConnectFlow.js"

const respond = (outcome: CallbackOutcome) =>
  outcome._tag === "Redirect"
    ? Effect.succeed(HttpServerResponse.empty({
      status: 302,
      headers: { location: outcome.location, "cache-control": "no-store", "referrer-policy": "no-referrer" }
    }))
    : Effect.fail(new BadRequest({ message: outcome.message }))

const oauthGroup = HttpApiBuilder.group(Api, "oauth", (handlers) =>
  Effect.gen(function*() {
    const flow = yield* ConnectFlow
    return handlers
      .handle("callback", ({ urlParams }) => Effect.flatMap(flow.callbackOAuth2(urlParams), respond))
      .handle("callbackOAuth1", ({ urlParams }) => Effect.flatMap(flow.callbackOAuth1(urlParams), respond))
  }))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const OAuthHttpLive = onlyServices([ConnectFlow], oauthGroup)
