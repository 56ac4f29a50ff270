/**
 * The services' errors under the API contract's names: the CLI reports an unknown app, key or user
 * with the same `_tag` and message as the HTTP API, so scripts can handle both alike.
 */
import { NotFound } from "@pulsebridge/domain"
import { ApiKeyNotFound, AppNotFound } from "@pulsebridge/server/apps/Apps"
import * as Effect from "effect/Effect"

const toContractError = <E>(error: E) =>
  error instanceof AppNotFound || error instanceof ApiKeyNotFound ? new NotFound({ message: error.message }) : error

export const withContractErrors = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(effect, toContractError)
