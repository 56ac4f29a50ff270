/**
 * The two credentials of the API and the middleware tags that check them.
 * Each accepts `Authorization: Bearer <credential>` and its legacy header.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import type { ApiKeyId, AppId, UserId } from "./Common.js"
import { Unauthorized } from "./Errors.js"

export const Permission = Schema.Literal("users:read", "users:write", "webhooks:read", "webhooks:write").annotations({
  identifier: "Permission"
})
export type Permission = typeof Permission.Type
export const allPermissions: ReadonlyArray<Permission> = Permission.literals

/** The app authenticated by an API key. */
export class CurrentApp extends Context.Tag("@pulsebridge/domain/CurrentApp")<CurrentApp, {
  readonly appId: AppId
  readonly apiKeyId: ApiKeyId
  readonly permissions: ReadonlyArray<Permission>
}>() {}

/** The end user authenticated by a user token. */
export class CurrentUser extends Context.Tag("@pulsebridge/domain/CurrentUser")<CurrentUser, {
  readonly appId: AppId
  readonly userId: UserId
  readonly timezone: string
}>() {}

export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  failure: Unauthorized,
  provides: CurrentApp,
  security: {
    apiKeyBearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "API key of the app (`pb_sk_...`) as a bearer token")
    ),
    apiKeyHeader: HttpApiSecurity.apiKey({ key: "X-App-Api-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Legacy header carrying the API key")
    )
  }
}) {}

export class UserTokenAuth extends HttpApiMiddleware.Tag<UserTokenAuth>()("UserTokenAuth", {
  failure: Unauthorized,
  provides: CurrentUser,
  security: {
    userTokenBearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "User token (`pb_ut_...`) as a bearer token")
    ),
    userTokenHeader: HttpApiSecurity.apiKey({ key: "X-User-Token", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Legacy header carrying the user token")
    )
  }
}) {}
