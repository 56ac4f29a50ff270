/**
 * The providers package: the shared canonical records and adapter interface, the plug-in
 * interface and its registry, and each built-in provider (its plug-in, adapter, data reader,
 * webhook receiver and pure normalisers, under provider-prefixed names; see docs/providers.md).
 */
export * from "./Adapter.js"
export * from "./Canonical.js"
export * from "./dexcom/index.js"
export * from "./fitbit/index.js"
export * from "./garmin/index.js"
export * from "./oura/index.js"
export * from "./Pkce.js"
export * from "./Plugin.js"
export * from "./Registry.js"
export * from "./whoop/index.js"
export * from "./withings/index.js"
