/**
 * Handlers of the OAuth callbacks (endpoints 23-24).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { notImplemented } from "./NotImplemented.js"

export const OAuthHttpLive = HttpApiBuilder.group(Api, "oauth", (handlers) =>
  Effect.succeed(
    handlers
      .handle("callback", () => notImplemented("The OAuth 2.0 callback"))
      .handle("callbackOAuth1", () => notImplemented("The OAuth 1.0a callback"))
  ))
