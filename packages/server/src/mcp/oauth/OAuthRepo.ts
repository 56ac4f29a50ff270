/**
 * Every statement on the MCP authorization tables (migration 0026): clients, authorization requests, the app's
 * sign-in assertions, grants, codes and tokens. Secrets arrive here as their SHA-256 only. Time is passed in
 * (`now`) from the service's `Clock`, so that expiry follows the clock tests drive.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { newId } from "../../platform/Ids.js"

export const ClientRow = Schema.Struct({
  clientId: Schema.String,
  kind: Schema.Literal("registered", "metadata"),
  clientName: Schema.String,
  clientUri: Schema.NullOr(Schema.String),
  redirectUris: Schema.parseJson(Schema.Array(Schema.String)),
  cachedUntil: Schema.NullOr(Schema.DateFromSelf)
})
export type ClientRow = typeof ClientRow.Type

/** An authorization request, as the app's sign-in and the consent need it. */
export const RequestRow = Schema.Struct({
  idHash: Schema.String,
  appId: Schema.String,
  clientId: Schema.String,
  redirectUri: Schema.String,
  state: Schema.NullOr(Schema.String),
  codeChallenge: Schema.String,
  scope: Schema.String,
  resource: Schema.String,
  expiresAt: Schema.DateFromSelf,
  usedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type RequestRow = typeof RequestRow.Type

/** A live assertion with its request, its app's name and its (Active) user. */
export const AssertionRow = Schema.Struct({
  ...RequestRow.fields,
  assertionHash: Schema.String,
  userId: Schema.String,
  appName: Schema.String,
  csrfHash: Schema.NullOr(Schema.String)
})
export type AssertionRow = typeof AssertionRow.Type

export const GrantRow = Schema.Struct({
  id: Schema.String,
  appId: Schema.String,
  userId: Schema.String,
  clientId: Schema.NullOr(Schema.String),
  clientName: Schema.String,
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type GrantRow = typeof GrantRow.Type

/** What a live access token opens: its grant's user (Active), scopes and resource. */
export const AccessRow = Schema.Struct({
  grantId: Schema.String,
  appId: Schema.String,
  userId: Schema.String,
  timezone: Schema.String,
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String),
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type AccessRow = typeof AccessRow.Type

export const CodeRow = Schema.Struct({
  grantId: Schema.String,
  clientId: Schema.String,
  redirectUri: Schema.String,
  codeChallenge: Schema.String,
  resource: Schema.NullOr(Schema.String),
  scope: Schema.String,
  expiresAt: Schema.DateFromSelf
})
export type CodeRow = typeof CodeRow.Type

const GrantOfToken = Schema.Struct({
  grantId: Schema.String,
  clientId: Schema.NullOr(Schema.String),
  kind: Schema.Literal("access", "refresh"),
  usedAt: Schema.NullOr(Schema.DateFromSelf),
  resource: Schema.NullOr(Schema.String),
  scope: Schema.String
})

export class OAuthRepo extends Effect.Service<OAuthRepo>()("@pulsebridge/server/OAuthRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findClient = SqlSchema.findOne({
      Request: Schema.String,
      Result: ClientRow,
      execute: (clientId) =>
        sql`
          select client_id, kind, client_name, client_uri, redirect_uris, cached_until
          from mcp_clients where client_id = ${clientId}
        `
    })

    const findRequest = SqlSchema.findOne({
      Request: Schema.String,
      Result: RequestRow,
      execute: (idHash) =>
        sql`
          select id_hash, app_id, client_id, redirect_uri, state, code_challenge, scope, resource, expires_at, used_at
          from mcp_auth_requests where id_hash = ${idHash}
        `
    })

    const findAssertion = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Schema.String, now: Schema.DateFromSelf }),
      Result: AssertionRow,
      execute: ({ hash, now }) =>
        sql`
          select r.id_hash, r.app_id, r.client_id, r.redirect_uri, r.state, r.code_challenge, r.scope, r.resource,
                 r.expires_at, r.used_at, a.assertion_hash, a.user_id, a.csrf_hash, p.name as app_name
          from mcp_assertions a
          join mcp_auth_requests r on r.id_hash = a.request_hash
          join users u on u.id = a.user_id
          join apps p on p.id = a.app_id
          where a.assertion_hash = ${hash} and a.used_at is null and a.expires_at > ${now}
            and u.status = 'Active' and u.app_id = a.app_id
        `
    })

    const listGrants = SqlSchema.findAll({
      Request: Schema.Struct({ appId: Schema.String, userId: Schema.String }),
      Result: GrantRow,
      execute: ({ appId, userId }) =>
        sql`
          select id, app_id, user_id, client_id, client_name, scope, resource, created_at, last_used_at
          from mcp_grants
          where app_id = ${appId} and user_id = ${userId} and revoked_at is null
          order by created_at, id
        `
    })

    const findAccess = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Schema.String, now: Schema.DateFromSelf }),
      Result: AccessRow,
      execute: ({ hash, now }) =>
        sql`
          select g.id as grant_id, g.app_id, g.user_id, u.timezone, g.scope, g.resource, g.last_used_at
          from mcp_tokens t
          join mcp_grants g on g.id = t.grant_id
          join users u on u.id = g.user_id
          where t.token_hash = ${hash} and t.kind = 'access' and t.revoked_at is null and t.expires_at > ${now}
            and g.revoked_at is null and u.status = 'Active'
        `
    })

    const useCode = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Schema.String, now: Schema.DateFromSelf }),
      Result: CodeRow,
      execute: ({ hash, now }) =>
        sql`
          update mcp_codes c set used_at = ${now}
          from mcp_grants g
          where c.code_hash = ${hash} and c.used_at is null and g.id = c.grant_id
          returning c.grant_id, c.client_id, c.redirect_uri, c.code_challenge, g.resource, g.scope, c.expires_at
        `
    })

    const codeGrant = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ grantId: Schema.String }),
      execute: (hash) => sql`select grant_id from mcp_codes where code_hash = ${hash}`
    })

    const tokenGrant = SqlSchema.findOne({
      Request: Schema.String,
      Result: GrantOfToken,
      execute: (hash) =>
        sql`
          select t.grant_id, g.client_id, t.kind, t.used_at, g.resource, g.scope
          from mcp_tokens t join mcp_grants g on g.id = t.grant_id
          where t.token_hash = ${hash}
        `
    })

    const useRefresh = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Schema.String, now: Schema.DateFromSelf }),
      Result: GrantOfToken,
      execute: ({ hash, now }) =>
        sql`
          update mcp_tokens t set used_at = ${now}
          from mcp_grants g, users u
          where t.token_hash = ${hash} and t.kind = 'refresh' and t.used_at is null and t.revoked_at is null
            and t.expires_at > ${now} and g.id = t.grant_id and g.revoked_at is null
            and u.id = g.user_id and u.status = 'Active'
          returning t.grant_id, g.client_id, t.kind, t.used_at, g.resource, g.scope
        `
    })

    return {
      // Clients ------------------------------------------------------------------------------------------------
      insertClient: (client: Omit<ClientRow, "redirectUris"> & { readonly redirectUris: ReadonlyArray<string> }) =>
        sql`
          insert into mcp_clients (client_id, kind, client_name, client_uri, redirect_uris, cached_until)
          values (${client.clientId}, ${client.kind}, ${client.clientName}, ${client.clientUri},
                  ${JSON.stringify(client.redirectUris)}, ${client.cachedUntil})
          on conflict (client_id) do update set client_name = excluded.client_name, client_uri = excluded.client_uri,
            redirect_uris = excluded.redirect_uris, cached_until = excluded.cached_until
          where mcp_clients.kind = 'metadata'
        `.pipe(Effect.asVoid, Effect.orDie),

      findClient: (clientId: string) => findClient(clientId).pipe(Effect.orDie),

      // Authorization requests ---------------------------------------------------------------------------------
      insertRequest: (request: Omit<RequestRow, "usedAt">) =>
        sql`
          insert into mcp_auth_requests
            (id_hash, app_id, client_id, redirect_uri, state, code_challenge, scope, resource, expires_at)
          values (${request.idHash}, ${request.appId}, ${request.clientId}, ${request.redirectUri}, ${request.state},
                  ${request.codeChallenge}, ${request.scope}, ${request.resource}, ${request.expiresAt})
        `.pipe(Effect.asVoid, Effect.orDie),

      findRequest: (idHash: string) => findRequest(idHash).pipe(Effect.orDie),

      /** Marks a live, unused request used; false when it was used or expired meanwhile. */
      useRequest: (idHash: string, now: Date) =>
        sql<{ idHash: string }>`
          update mcp_auth_requests set used_at = ${now}
          where id_hash = ${idHash} and used_at is null and expires_at > ${now}
          returning id_hash
        `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      /** Requests and their assertions that expired before `before` (none is of use any more). */
      pruneRequests: (before: Date) =>
        sql`delete from mcp_auth_requests where expires_at < ${before}`.pipe(Effect.asVoid, Effect.orDie),

      // Assertions ---------------------------------------------------------------------------------------------
      insertAssertion: (assertion: {
        readonly assertionHash: string
        readonly requestHash: string
        readonly appId: string
        readonly userId: string
        readonly expiresAt: Date
      }) =>
        sql`
          insert into mcp_assertions (assertion_hash, request_hash, app_id, user_id, expires_at)
          values (${assertion.assertionHash}, ${assertion.requestHash}, ${assertion.appId}, ${assertion.userId},
                  ${assertion.expiresAt})
        `.pipe(Effect.asVoid, Effect.orDie),

      findAssertion: (hash: string, now: Date) => findAssertion({ hash, now }).pipe(Effect.orDie),

      /** Binds a new CSRF token (its hash) to a live assertion: the consent form shown last is the one that counts. */
      setCsrf: (hash: string, csrfHash: string) =>
        sql`update mcp_assertions set csrf_hash = ${csrfHash} where assertion_hash = ${hash} and used_at is null`
          .pipe(Effect.asVoid, Effect.orDie),

      /** Uses a live assertion whose CSRF token is `csrfHash`; false when it was used, expired or not that token. */
      useAssertion: (hash: string, csrfHash: string, now: Date) =>
        sql<{ assertionHash: string }>`
          update mcp_assertions set used_at = ${now}
          where assertion_hash = ${hash} and csrf_hash = ${csrfHash} and used_at is null and expires_at > ${now}
          returning assertion_hash
        `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      // Grants -------------------------------------------------------------------------------------------------
      insertGrant: (grant: {
        readonly appId: string
        readonly userId: string
        readonly clientId: string | null
        readonly clientName: string
        readonly scope: string
        readonly resource: string | null
      }) =>
        Effect.gen(function*() {
          const id = newId()
          yield* sql`
            insert into mcp_grants (id, app_id, user_id, client_id, client_name, scope, resource)
            values (${id}, ${grant.appId}, ${grant.userId}, ${grant.clientId}, ${grant.clientName}, ${grant.scope},
                    ${grant.resource})
          `
          return id
        }).pipe(Effect.orDie),

      listGrants: (appId: string, userId: string) => listGrants({ appId, userId }).pipe(Effect.orDie),

      /** Revokes a live grant of the app's user; false when there is none by that id. */
      revokeGrantOf: (appId: string, userId: string, grantId: string, now: Date) =>
        sql<{ id: string }>`
          update mcp_grants set revoked_at = ${now}
          where id = ${grantId} and app_id = ${appId} and user_id = ${userId} and revoked_at is null
          returning id
        `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      /** Revokes a grant, and so every token of it. */
      revokeGrant: (grantId: string, now: Date) =>
        sql`update mcp_grants set revoked_at = ${now} where id = ${grantId} and revoked_at is null`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** Notes a grant's use (at most once a minute). */
      touchGrant: (grantId: string, now: Date) =>
        sql`
          update mcp_grants set last_used_at = ${now}
          where id = ${grantId} and (last_used_at is null or last_used_at < ${new Date(now.getTime() - 60_000)})
        `.pipe(Effect.asVoid, Effect.orDie),

      // Codes --------------------------------------------------------------------------------------------------
      insertCode: (code: {
        readonly codeHash: string
        readonly grantId: string
        readonly clientId: string
        readonly redirectUri: string
        readonly codeChallenge: string
        readonly expiresAt: Date
      }) =>
        sql`
          insert into mcp_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, expires_at)
          values (${code.codeHash}, ${code.grantId}, ${code.clientId}, ${code.redirectUri}, ${code.codeChallenge},
                  ${code.expiresAt})
        `.pipe(Effect.asVoid, Effect.orDie),

      /** Uses an unused code: its row, or none when it is unknown or used already. */
      useCode: (hash: string, now: Date) => useCode({ hash, now }).pipe(Effect.orDie),

      /** The grant of a code, used or not. */
      codeGrant: (hash: string) => codeGrant(hash).pipe(Effect.map(Option.map((row) => row.grantId)), Effect.orDie),

      // Tokens -------------------------------------------------------------------------------------------------
      insertToken: (token: {
        readonly tokenHash: string
        readonly grantId: string
        readonly kind: "access" | "refresh"
        readonly expiresAt: Date
      }) =>
        sql`
          insert into mcp_tokens (token_hash, grant_id, kind, expires_at)
          values (${token.tokenHash}, ${token.grantId}, ${token.kind}, ${token.expiresAt})
        `.pipe(Effect.asVoid, Effect.orDie),

      findAccess: (hash: string, now: Date) => findAccess({ hash, now }).pipe(Effect.orDie),

      /** Uses a live refresh token (rotation): its grant, or none when it is unknown, used, revoked or expired. */
      useRefresh: (hash: string, now: Date) => useRefresh({ hash, now }).pipe(Effect.orDie),

      /** The grant of a token, live or not. */
      tokenGrant: (hash: string) => tokenGrant(hash).pipe(Effect.orDie),

      revokeToken: (hash: string, now: Date) =>
        sql`update mcp_tokens set revoked_at = ${now} where token_hash = ${hash} and revoked_at is null`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      // Apps ---------------------------------------------------------------------------------------------------
      /** The app's sandbox test users (the sandbox's demo sign-in page), oldest first, at most 50. */
      sandboxUsers: (appId: string) =>
        sql<{ id: string; externalUserId: string }>`
          select u.id, u.external_user_id
          from sandbox_test_users s join users u on u.id = s.user_id
          where s.app_id = ${appId} and u.app_id = ${appId} and u.status = 'Active'
          order by s.marked_at, u.id
          limit 50
        `.pipe(Effect.orDie),

      appSignIn: (appId: string) =>
        sql<{ name: string; assistantSignInUrl: string | null }>`
          select name, assistant_sign_in_url from apps where id = ${appId}
        `.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)
    } as const
  })
}) {}
