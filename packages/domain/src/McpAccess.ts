/**
 * The app's side of assistant access to the MCP server (docs/mcp.md): the sign-in assertion an app makes after
 * it has signed its user in for an assistant's OAuth authorization, MCP tokens the app issues itself for an
 * assistant it embeds, and the grants (assistants' access) of a user, which the app lists and revokes. MCP
 * tokens are read-only, carry scopes (which data types), and are refused by every REST route.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ApiKeyAuth } from "./Auth.js"
import { ContractString, Timestamp, UserId, uuidId } from "./Common.js"
import { BadRequest, Conflict, Forbidden, NotFound } from "./Errors.js"

/** The scopes of MCP access: one per data type the tools read, every one read-only. */
export const mcpScopes = [
  "activity",
  "glucose",
  "sleep",
  "workouts",
  "recovery",
  "body",
  "nutrition",
  "scores"
] as const

export const McpScope = Schema.Literal(...mcpScopes).annotations({
  identifier: "McpScope",
  description: "A data type an MCP token may read (read-only): `activity` (daily activity and load), `glucose` " +
    "(glucose summaries), `sleep`, `workouts`, `recovery`, `body`, `nutrition` (the journal; meal responses also " +
    "need `glucose`), `scores`. Every token may read the profile, the connections and the coverage."
})
export type McpScope = typeof McpScope.Type

export const McpGrantId = uuidId("McpGrantId")
export type McpGrantId = typeof McpGrantId.Type

/** The longest lifetime of an API-issued MCP token, in seconds (a year). */
export const McpTokenMaxSeconds = 365 * 24 * 60 * 60

export class CreateSignInAssertionPayload
  extends Schema.Class<CreateSignInAssertionPayload>("CreateSignInAssertionPayload")({
    request: ContractString(
      { maxLength: 1024, minLength: 1, noWhitespace: true },
      "The `pb_request` query parameter PulseBridge sent the browser to the app's sign-in URL with, as it arrived"
    ),
    userId: UserId.annotations({ description: "The app's user who signed in" })
  })
{}

export class SignInAssertion extends Schema.Class<SignInAssertion>("SignInAssertion")({
  redirectUrl: Schema.String.annotations({
    description: "Send the user's browser here (a 302 or 303): PulseBridge's consent page. One use."
  }),
  expiresAt: Timestamp.annotations({ description: "Five minutes from now" })
}) {}

export class CreateMcpTokenPayload extends Schema.Class<CreateMcpTokenPayload>("CreateMcpTokenPayload")({
  scopes: Schema.optional(
    Schema.Array(McpScope).pipe(Schema.maxItems(mcpScopes.length * 2)).annotations({
      description: "The data types the token may read; empty or absent: all of them"
    })
  ),
  expiresInSeconds: Schema.optional(
    Schema.Int.pipe(Schema.between(60, McpTokenMaxSeconds, {
      message: () => `expected 60 to ${McpTokenMaxSeconds} seconds`
    })).annotations({ description: "The token's lifetime: 60 s to a year; default 30 days" })
  )
}) {}

export class McpToken extends Schema.Class<McpToken>("McpToken")({
  token: Schema.String.annotations({
    description: "The MCP token (`pb_mt_...`), shown only here; `Authorization: Bearer` at `POST /mcp`"
  }),
  grantId: McpGrantId,
  scopes: Schema.Array(McpScope),
  expiresAt: Timestamp
}) {}

export class McpGrant extends Schema.Class<McpGrant>("McpGrant")({
  id: McpGrantId,
  kind: Schema.Literal("oauth", "api").annotations({
    description: "`oauth`: an assistant the user approved on the consent page; `api`: a token the app issued"
  }),
  clientId: Schema.NullOr(Schema.String).annotations({
    description: "The OAuth client's id (a URL for a client metadata document); null for an API-issued token"
  }),
  clientName: Schema.String,
  scopes: Schema.Array(McpScope),
  resource: Schema.NullOr(Schema.String).annotations({
    description: "The MCP URL the grant's tokens are valid at; null: `/mcp` (API-issued)"
  }),
  createdAt: Timestamp,
  lastUsedAt: Schema.NullOr(Timestamp)
}) {}

const userPath = Schema.Struct({ userId: UserId })

export class McpAccessGroup extends HttpApiGroup.make("mcpAccess")
  .add(
    HttpApiEndpoint.post("createSignInAssertion", "/api/v1/mcp/sign-in-assertions")
      .setPayload(CreateSignInAssertionPayload)
      .addSuccess(SignInAssertion, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Assert that the app's user signed in for an assistant")
      .annotate(
        OpenApi.Description,
        "Called by the app's backend from its assistant sign-in URL, after it has authenticated its user: " +
          "names the user for the authorization request `request` (the `pb_request` PulseBridge sent). Answers " +
          "the consent page's URL, where the app sends the browser. The assertion is one use, valid five " +
          "minutes, and bound to the request, the user and the app. 400: `request` was altered, expired or is " +
          "another app's; 404: no active user of the app by that id; 409: the request was answered already. " +
          "Needs `users:write`."
      )
  )
  .add(
    HttpApiEndpoint.post("createToken", "/api/v1/users/:userId/mcp-tokens")
      .setPath(userPath)
      .setPayload(CreateMcpTokenPayload)
      .addSuccess(McpToken, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Issue an MCP token for an assistant the app embeds")
      .annotate(
        OpenApi.Description,
        "A read-only token (`pb_mt_...`) for `POST /mcp`, limited to `scopes`, shown once. It is refused by every " +
          "REST route. Revoke it through its grant (`DELETE .../mcp-grants/{grantId}`). Needs `users:write`."
      )
  )
  .add(
    HttpApiEndpoint.get("listGrants", "/api/v1/users/:userId/mcp-grants")
      .setPath(userPath)
      .addSuccess(Schema.Array(McpGrant))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the user's assistant grants")
      .annotate(
        OpenApi.Description,
        "The live grants of MCP access: each assistant the user approved, and each token the app issued. Oldest " +
          "first. Needs `users:read`."
      )
  )
  .add(
    HttpApiEndpoint.del("revokeGrant", "/api/v1/users/:userId/mcp-grants/:grantId")
      .setPath(Schema.Struct({ userId: UserId, grantId: McpGrantId }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Revoke an assistant grant")
      .annotate(
        OpenApi.Description,
        "Every access and refresh token of the grant stops working at once. Needs `users:write`."
      )
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(ApiKeyAuth)
  .annotate(OpenApi.Title, "MCP access")
  .annotate(
    OpenApi.Description,
    "Assistant access to the MCP server (`/mcp` and each app's `/mcp/apps/{appId}`): the app's side of the OAuth " +
      "sign-in, app-issued MCP tokens, and the user's grants. MCP tokens only read, and only at the MCP server."
  )
{}
