/**
 * Garmin data: not built yet.
 */
import * as Effect from "effect/Effect"
import { ProviderError } from "../Adapter.js"
import type { ProviderData } from "../Canonical.js"

export const GarminData: ProviderData = {
  windowDays: 7,
  maxBackfillDays: 30,
  fetchWindow: () => Effect.fail(new ProviderError({ provider: "Garmin", operation: "fetch", message: "not built" }))
}
