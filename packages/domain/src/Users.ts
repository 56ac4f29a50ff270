/**
 * Users (endpoints 1-6): the app's end users, created idempotently by the app's own id.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ApiKeyAuth } from "./Auth.js"
import { AppId, ContractString, jsonTextProblem, Timestamp, TimeZone, UserId } from "./Common.js"
import { BadRequest, Forbidden, NotFound } from "./Errors.js"

export const UserStatus = Schema.Literal("Active", "Inactive").annotations({
  identifier: "UserStatus",
  description: "`Active` for a live user; `Inactive` after DELETE (data kept, tokens stop working)"
})

export const MaxMetadataBytes = 16 * 1024

export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((m) =>
    new TextEncoder().encode(JSON.stringify(m)).length <= MaxMetadataBytes || `metadata may be at most 16 KiB as JSON`
  ),
  Schema.filter((m) => jsonTextProblem(m) ?? true)
).annotations({
  identifier: "Metadata",
  description: "Arbitrary key-value data of the app, at most 16 KiB as JSON; no string (or key) in it may contain " +
    "NUL or a lone surrogate"
})

export const MaxExternalUserIdLength = 255

export const ExternalUserId = ContractString(
  { minLength: 1, maxLength: MaxExternalUserIdLength },
  "The app's own identifier for the user; unique within the app"
)

export const Locale = Schema.String.pipe(
  Schema.maxLength(35, { message: () => "expected at most 35 characters" }),
  Schema.pattern(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, {
    message: () => "locale must be a language tag such as en-US"
  })
).annotations({ description: "Language tag, e.g. en-US; at most 35 characters", examples: ["en-US"] })

const userFields = {
  id: UserId,
  appId: AppId,
  externalUserId: Schema.String,
  status: UserStatus,
  locale: Schema.String,
  timezone: Schema.String,
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}

export class User extends Schema.Class<User>("User")(userFields) {}

export class UserWithToken extends Schema.Class<UserWithToken>("UserWithToken")({
  ...userFields,
  token: Schema.String.annotations({ description: "User token (`pb_ut_...`); shown only here and by rotate-token" })
}) {}

export class CreateUserPayload extends Schema.Class<CreateUserPayload>("CreateUserPayload")({
  externalUserId: ExternalUserId,
  locale: Schema.optional(Locale),
  timezone: Schema.optional(TimeZone),
  metadata: Schema.optional(Metadata)
}) {}

export class UpdateUserPayload extends Schema.Class<UpdateUserPayload>("UpdateUserPayload")({
  locale: Schema.optional(Locale),
  timezone: Schema.optional(TimeZone),
  metadata: Schema.optional(Metadata.annotations({ description: "Replaces the existing metadata entirely" }))
}) {}

export class RotatedToken extends Schema.Class<RotatedToken>("RotatedToken")({
  token: Schema.String
}) {}

export class ErasureAccepted extends Schema.Class<ErasureAccepted>("ErasureAccepted")({
  id: UserId,
  status: Schema.Literal("Erasing").annotations({
    description: "The erasure is under way; it finishes in the background, also after a restart"
  }),
  requestedAt: Timestamp.annotations({ description: "When the erasure was first asked for" })
}) {}

export const ExportParams = Schema.Struct({
  includeRaw: Schema.optional(
    Schema.Literal("true", "false").annotations({
      description: "`true` adds each canonical record's stored provider JSON as `raw` (default `false`)"
    })
  )
})

/** The types of the export's lines, in the order they come. */
export const ExportLineType = Schema.Literal(
  "user",
  "connection",
  "dailyActivity",
  "dailyLoad",
  "sleepSession",
  "recovery",
  "workout",
  "profile",
  "bodyMeasurement",
  "glucoseReading",
  "glucoseEvent",
  "glucoseCalibration",
  "journalEntry",
  "dailyScore"
).annotations({ identifier: "ExportLineType" })

const idPath = Schema.Struct({ id: UserId })

export class UsersGroup extends HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/users")
      .setPayload(CreateUserPayload)
      .addSuccess(UserWithToken.annotations({ description: "New user" }), { status: 201 })
      .addSuccess(UserWithToken.annotations({ description: "Existing user; a fresh token was issued" }))
      .annotate(OpenApi.Summary, "Create a user (idempotent by externalUserId)")
      .annotate(
        OpenApi.Description,
        "201 with a new user, 200 when `externalUserId` already exists in the app (a fresh token is issued; " +
          "an Inactive user is reactivated). Needs `users:write`. Body at most 1 MiB; metadata at most 16 KiB."
      )
  )
  .add(
    HttpApiEndpoint.get("find", "/api/v1/users")
      .setUrlParams(Schema.Struct({ external_user_id: ExternalUserId }))
      .addSuccess(User)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Look a user up by externalUserId")
      .annotate(OpenApi.Description, "404 when no user of the app has that id. Needs `users:read`.")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/users/:id")
      .setPath(idPath)
      .addSuccess(User)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a user")
      .annotate(OpenApi.Description, "Inactive (deleted) users are returned with status `Inactive`.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/users/:id")
      .setPath(idPath)
      .setPayload(UpdateUserPayload)
      .addSuccess(User)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a user")
      .annotate(OpenApi.Description, "Partial update; `metadata` replaces the stored metadata entirely.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/v1/users/:id")
      .setPath(idPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Soft-delete a user")
      .annotate(
        OpenApi.Description,
        "The user becomes `Inactive`: data is kept, its tokens stop working, sync stops. " +
          "Creating the same externalUserId again reactivates it."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateToken", "/api/v1/users/:id/rotate-token")
      .setPath(idPath)
      .addSuccess(RotatedToken)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Rotate the user's token")
      .annotate(OpenApi.Description, "Revokes every earlier token of the user and returns one new token.")
  )
  .add(
    HttpApiEndpoint.post("erase", "/api/v1/users/:id/erase")
      .setPath(idPath)
      .addSuccess(ErasureAccepted, { status: 202 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Erase a user and all its data")
      .annotate(
        OpenApi.Description,
        "202 at once: from then on the user is gone for every read (404) and its token (401), and creating the " +
          "same externalUserId makes a new user (201). In the background every provider grant is revoked, every " +
          "row and stored photo of the user is deleted, leaving a tombstone with ids only, and `user.erased` is " +
          "emitted; the work survives a restart. Asking again while it runs is 202 again; once it is done, 404. " +
          "Needs `users:write`."
      )
  )
  .add(
    HttpApiEndpoint.get("export", "/api/v1/users/:id/export")
      .setPath(idPath)
      .setUrlParams(ExportParams)
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-ndjson" }))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Export everything stored of a user (NDJSON)")
      .annotate(
        OpenApi.Description,
        "Streams `application/x-ndjson`: one line `{\"type\", \"data\"}` per record: the user, its connections " +
          "(never a token), every canonical record (daily activity, daily load, sleep sessions, recoveries, " +
          "workouts, profiles, body measurements, glucose readings, events and calibrations), journal entries " +
          "with items and image metadata, and daily scores. `includeRaw=true` adds each record's provider JSON " +
          "as `raw`. Inactive users export too. Needs `users:read`."
      )
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(ApiKeyAuth)
  .annotate(OpenApi.Title, "Users")
  .annotate(OpenApi.Description, "User management with an API key")
{}
