/**
 * The error catalogue: one tagged error per HTTP status. Every error body is JSON
 * `{ "_tag": ..., "message": ... }`; schema-decode failures keep `HttpApiDecodeError` (400, with `issues`).
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400, description: "The request is invalid" })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  HttpApiSchema.annotations({
    status: 401,
    description: "Missing, invalid or revoked credential, or a credential of the wrong type"
  })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 403, description: "Valid credential without the needed permission" })
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 404, description: "No such resource for this credential" })
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 413, description: "The request body is over the size limit" })
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 415, description: "The uploaded content type is not accepted" })
) {}

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String, retryAfterSeconds: Schema.Number },
  HttpApiSchema.annotations({ status: 429, description: "Rate limit reached; retry after the given delay" })
) {}

export class InternalServerError extends Schema.TaggedError<InternalServerError>()(
  "InternalServerError",
  { message: Schema.String, requestId: Schema.String },
  HttpApiSchema.annotations({ status: 500, description: "Server-side failure; quote the request id" })
) {}

export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()(
  "ProviderUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 502, description: "The provider did not answer as expected; retry later" })
) {}

export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 501, description: "This endpoint is not available yet" })
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { message: Schema.String },
  HttpApiSchema.annotations({
    status: 409,
    description: "The resource is not in a state that allows this (e.g. a connection waiting to be reauthorized)"
  })
) {}
