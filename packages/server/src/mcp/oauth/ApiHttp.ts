/**
 * Handlers of the MCP access group (`/api/v1/mcp/...`, `/api/v1/users/{userId}/mcp-...`): the app's sign-in
 * assertion, app-issued MCP tokens, and the user's grants. App-scoped like every API-key route: another app's
 * user or grant is a 404.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest, Conflict, McpGrant, McpToken, NotFound, SignInAssertion } from "@pulsebridge/domain"
import type { McpScope } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApiKeyAuthLive, requirePermission } from "../../access/ApiKeyAuth.js"
import { onlyServices } from "../../platform/GroupContext.js"
import type { AssertionRefused, GrantNotFound } from "./Authorization.js"
import { McpAuthorization } from "./Authorization.js"
import { Lifetimes } from "./Rules.js"

const notFound = (error: GrantNotFound) => Effect.fail(new NotFound({ message: error.message }))

const refused = (error: AssertionRefused): Effect.Effect<never, NotFound | Conflict | BadRequest> =>
  error.reason === "UnknownUser"
    ? Effect.fail(new NotFound({ message: error.message }))
    : error.reason === "Used"
    ? Effect.fail(new Conflict({ message: error.message }))
    : Effect.fail(new BadRequest({ message: error.message }))

const scopesOf = (scope: string) => scope.split(" ").filter((s) => s !== "") as Array<McpScope>

const mcpAccessGroup = HttpApiBuilder.group(Api, "mcpAccess", (handlers) =>
  Effect.gen(function*() {
    const authorization = yield* McpAuthorization
    return handlers
      .handle("createSignInAssertion", ({ payload }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:write")
          const made = yield* authorization.createAssertion(app.appId, payload.request, payload.userId).pipe(
            Effect.catchTag("AssertionRefused", refused)
          )
          return new SignInAssertion(made)
        }))
      .handle("createToken", ({ path, payload }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:write")
          const issued = yield* authorization.issueApiToken(
            app.appId,
            path.userId,
            payload.scopes,
            payload.expiresInSeconds ?? Lifetimes.apiTokenDefaultSeconds
          ).pipe(Effect.catchTag("GrantNotFound", notFound))
          return new McpToken({ ...issued, grantId: issued.grantId as McpToken["grantId"], scopes: issued.scopes })
        }))
      .handle("listGrants", ({ path }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:read")
          const grants = yield* authorization.listGrants(app.appId, path.userId).pipe(
            Effect.catchTag("GrantNotFound", notFound)
          )
          return grants.map((grant) =>
            new McpGrant({
              id: grant.id as McpGrant["id"],
              kind: grant.clientId === null ? "api" : "oauth",
              clientId: grant.clientId,
              clientName: grant.clientName,
              scopes: scopesOf(grant.scope),
              resource: grant.resource,
              createdAt: grant.createdAt,
              lastUsedAt: grant.lastUsedAt
            })
          )
        }))
      .handle("revokeGrant", ({ path }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:write")
          yield* authorization.revokeGrant(app.appId, path.userId, path.grantId).pipe(
            Effect.catchTag("GrantNotFound", notFound)
          )
        }))
  })).pipe(Layer.provide(ApiKeyAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const McpAccessHttpLive = onlyServices([SqlClient.SqlClient, McpAuthorization], mcpAccessGroup)
