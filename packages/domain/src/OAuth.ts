/**
 * The OAuth callbacks of the hosted connect flow (endpoints 23-24). No credential: the
 * provider redirects the end user's browser here, and we redirect on to the app.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ContractString } from "./Common.js"
import { BadRequest } from "./Errors.js"

const redirect = HttpApiSchema.Empty(302).annotations({
  description: "Redirect to the session's redirectUrl with `success=true` or `success=false&error=...`"
})

export class OAuthGroup extends HttpApiGroup.make("oauth")
  .add(
    HttpApiEndpoint.get("callback", "/api/v1/connections/callback")
      .setUrlParams(Schema.Struct({
        code: Schema.optional(ContractString({ maxLength: 4096 }, "The authorization code")),
        state: Schema.optional(ContractString({ maxLength: 512 }, "The session's state")),
        error: Schema.optional(ContractString({ maxLength: 256 }, "The provider's error code")),
        error_description: Schema.optional(ContractString({ maxLength: 2048 }, "The provider's error text"))
      }))
      .addSuccess(redirect)
      .annotate(OpenApi.Summary, "OAuth 2.0 callback")
  )
  .add(
    HttpApiEndpoint.get("callbackOAuth1", "/api/v1/connections/callback/oauth1")
      .setUrlParams(Schema.Struct({
        oauth_token: Schema.optional(ContractString({ maxLength: 1024 }, "The request token")),
        oauth_verifier: Schema.optional(ContractString({ maxLength: 1024 }, "The verifier"))
      }))
      .addSuccess(redirect)
      .annotate(OpenApi.Summary, "OAuth 1.0a callback")
  )
  .addError(BadRequest)
  .annotate(OpenApi.Title, "OAuth callbacks")
  .annotate(OpenApi.Description, "System endpoints of the hosted connect flow; no credential")
{}
