/**
 * The OAuth callbacks of the hosted connect flow (endpoints 23-24). No credential: the
 * provider redirects the end user's browser here, and we redirect on to the app.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { BadRequest } from "./Errors.js"

const redirect = HttpApiSchema.Empty(302).annotations({
  description: "Redirect to the session's redirectUrl with `success=true` or `success=false&error=...`"
})

export class OAuthGroup extends HttpApiGroup.make("oauth")
  .add(
    HttpApiEndpoint.get("callback", "/api/v1/connections/callback")
      .setUrlParams(Schema.Struct({
        code: Schema.optional(Schema.String),
        state: Schema.optional(Schema.String),
        error: Schema.optional(Schema.String),
        error_description: Schema.optional(Schema.String)
      }))
      .addSuccess(redirect)
      .annotate(OpenApi.Summary, "OAuth 2.0 callback")
  )
  .add(
    HttpApiEndpoint.get("callbackOAuth1", "/api/v1/connections/callback/oauth1")
      .setUrlParams(Schema.Struct({
        oauth_token: Schema.optional(Schema.String),
        oauth_verifier: Schema.optional(Schema.String)
      }))
      .addSuccess(redirect)
      .annotate(OpenApi.Summary, "OAuth 1.0a callback")
  )
  .addError(BadRequest)
  .annotate(OpenApi.Title, "OAuth callbacks")
  .annotate(OpenApi.Description, "System endpoints of the hosted connect flow; no credential")
{}
