/**
 * The provider simulators' public face: Fitbit, Garmin (OAuth 1.0a), WHOOP (v2) and Dexcom (v3)
 * as mountable `HttpApp`s with fault knobs, a call log and deterministic synthetic data. The
 * building blocks (request context, consent page, state cell) stay in `./Core.js`.
 *
 * Shape: `makeSimulator(provider, options)` (or `makeFitbitSimulator` etc.) returns
 * `{ provider, slug, app, router, baseUrl, control }`: `app` is an `HttpApp.Default` to serve or
 * `HttpRouter.mountApp(prefix, app)`, `router` the same for `HttpRouter.mount(prefix, router)`,
 * `baseUrl` the B every generated URL starts with, `control` the programmatic knobs (the same
 * as `B/_sim/...` over HTTP) plus each provider's webhook senders. `serveSimulator(sim)` serves
 * one on 127.0.0.1 inside a scope.
 */
export type { AnalyzerCall, AnalyzerFault, AnalyzerFaultKind, AnalyzerSimulator } from "./Analyzer.js"
export { makeAnalyzerSimulator, sandboxMealFor, sandboxMeals, sandboxModel } from "./Analyzer.js"
export type {
  CallFilter,
  CallRecord,
  Delivery,
  FaultKind,
  FaultSpec,
  PendingFault,
  ServedApp,
  SimulatedUser,
  Simulator,
  SimulatorClient,
  SimulatorControl,
  SimulatorOptions,
  SimulatorSlug
} from "./Core.js"
export { serveHttpApp, serveSimulator, SimulatorServeError } from "./Core.js"
export type { DexcomRecordKind, DexcomSimulator } from "./Dexcom.js"
export { DEXCOM_SANDBOX_USERS, dexcomRecords, makeDexcomSimulator } from "./Dexcom.js"
export type {
  FitbitControl,
  FitbitNotification,
  FitbitSimulator,
  FitbitSubscription,
  SubscriberVerification
} from "./Fitbit.js"
export {
  FITBIT_COLLECTIONS,
  FITBIT_SCOPES,
  fitbitDailySummary,
  fitbitSignature,
  makeFitbitSimulator
} from "./Fitbit.js"
export type { GarminControl, GarminSimulator } from "./Garmin.js"
export { GARMIN_PERMISSIONS, garminDaily, makeGarminSimulator } from "./Garmin.js"
export { hmacSha1Signature, normalizeBaseUri, percentEncode, signatureBaseString } from "./OAuth1.js"
export { providerUserIds, tokenFingerprint } from "./Random.js"
export type { SimulatorFor } from "./Simulators.js"
export { makeSimulator, simulatorEndpoints, simulatorSlugs } from "./Simulators.js"
export type { SimulatorStore } from "./Store.js"
export { fileStore, memoryStore } from "./Store.js"
export type { WhoopControl, WhoopEventType, WhoopSimulator } from "./Whoop.js"
export { makeWhoopSimulator, WHOOP_SCOPES, whoopSignature } from "./Whoop.js"
