/**
 * The provider simulators' public face: Fitbit (through the Google Health API), Garmin
 * (OAuth 1.0a), WHOOP (v2) and Dexcom (v3) as mountable `HttpApp`s with fault knobs, a call log and deterministic synthetic data. The
 * building blocks (request context, consent page, state cell) stay in `./core/`.
 *
 * Shape: `makeSimulator(provider, options)` (or `makeFitbitSimulator` etc.; `simulatorRegistry`
 * lists them, one entry per provider) returns
 * `{ provider, slug, app, router, baseUrl, control }`: `app` is an `HttpApp.Default` to serve or
 * `HttpRouter.mountApp(prefix, app)`, `router` the same for `HttpRouter.mount(prefix, router)`,
 * `baseUrl` the B every generated URL starts with, `control` the programmatic knobs (the same
 * as `B/_sim/...` over HTTP) plus each provider's webhook senders. `serveSimulator(sim)` serves
 * one on 127.0.0.1 inside a scope.
 */
export type { AnalyzerCall, AnalyzerFault, AnalyzerFaultKind, AnalyzerSimulator } from "./analyzer/Simulator.js"
export { makeAnalyzerSimulator, sandboxMealFor, sandboxMeals, sandboxModel } from "./analyzer/Simulator.js"
export { FaultSpecSchema } from "./core/App.js"
export type { Delivery } from "./core/Deliver.js"
export { hmacSha1Signature, normalizeBaseUri, percentEncode, signatureBaseString } from "./core/OAuth1.js"
export type {
  CallFilter,
  CallRecord,
  FaultKind,
  FaultSpec,
  PendingFault,
  SimulatedUser,
  Simulator,
  SimulatorClient,
  SimulatorControl,
  SimulatorOptions,
  SimulatorSlug
} from "./core/Options.js"
export { providerUserIds, tokenFingerprint } from "./core/Random.js"
export type { ServedApp } from "./core/Serve.js"
export { serveHttpApp, serveSimulator, SimulatorServeError } from "./core/Serve.js"
export type { SimulatorStore } from "./core/Store.js"
export { fileStore, memoryStore } from "./core/Store.js"
export type { DexcomRecordKind } from "./dexcom/Data.js"
export { dexcomRecords } from "./dexcom/Data.js"
export { usualMealTimes as dexcomUsualMealTimes } from "./dexcom/Glucose.js"
export { DEXCOM_SANDBOX_USERS } from "./dexcom/Shapes.js"
export type { DexcomSimulator } from "./dexcom/Simulator.js"
export { makeDexcomSimulator } from "./dexcom/Simulator.js"
export { fitbitDailySummary, rollupValueOf } from "./fitbit/Data.js"
export type { FitbitControl, GoogleHealthNotificationBody, SubscriberVerification } from "./fitbit/Shapes.js"
export { DATA_TYPES as GOOGLE_HEALTH_DATA_TYPES, GOOGLE_HEALTH_SCOPES, healthUserIdOf } from "./fitbit/Shapes.js"
export type { FitbitSimulator } from "./fitbit/Simulator.js"
export { makeFitbitSimulator } from "./fitbit/Simulator.js"
export { simulatorSignature as googleHealthSimulatorSignature } from "./fitbit/Webhooks.js"
export { garminDaily } from "./garmin/Data.js"
export type { GarminControl } from "./garmin/Shapes.js"
export { GARMIN_PERMISSIONS } from "./garmin/Shapes.js"
export type { GarminSimulator } from "./garmin/Simulator.js"
export { makeGarminSimulator } from "./garmin/Simulator.js"
export type { SimulatorEntry, SimulatorFor, SimulatorRegistry } from "./Registry.js"
export { findSimulator, makeSimulator, simulatorEndpoints, simulatorRegistry, simulatorSlugs } from "./Registry.js"
export type { WhoopControl, WhoopEventType } from "./whoop/Shapes.js"
export { WHOOP_SCOPES } from "./whoop/Shapes.js"
export type { WhoopSimulator } from "./whoop/Simulator.js"
export { makeWhoopSimulator } from "./whoop/Simulator.js"
export { whoopSignature } from "./whoop/Webhooks.js"
