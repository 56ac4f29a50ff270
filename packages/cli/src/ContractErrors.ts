/**
 * The services' errors under the API contract's names: the CLI reports an unknown app, key, user or
 * webhook endpoint with the same `_tag` and message as the HTTP API, so scripts can handle both alike.
 */
import { BadRequest, NotFound } from "@pulsebridge/domain"
import {
  ApiKeyNotFound,
  AppNotFound,
  CursorInvalid,
  EndpointNotFound,
  ExternalUserNotFound,
  UrlRefused,
  UserInactive,
  UserNotFound,
  UserNotFoundForErasure
} from "@pulsebridge/server"
import * as Effect from "effect/Effect"

const toContractError = <E>(error: E) => {
  if (
    error instanceof AppNotFound || error instanceof ApiKeyNotFound || error instanceof UserNotFound ||
    error instanceof ExternalUserNotFound || error instanceof EndpointNotFound ||
    error instanceof UserNotFoundForErasure
  ) {
    return new NotFound({ message: error.message })
  }
  return error instanceof UserInactive || error instanceof UrlRefused || error instanceof CursorInvalid
    ? new BadRequest({ message: error.message })
    : error
}

export const withContractErrors = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(effect, toContractError)
