/**
 * Dexcom data: not built yet.
 */
import * as Effect from "effect/Effect"
import { ProviderError } from "../Adapter.js"
import type { ProviderData } from "../Canonical.js"

export const DexcomData: ProviderData = {
  windowDays: 7,
  maxBackfillDays: 30,
  fetchWindow: () => Effect.fail(new ProviderError({ provider: "Dexcom", operation: "fetch", message: "not built" }))
}
