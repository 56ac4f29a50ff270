/**
 * The Oura simulator, and what of it tests and the sandbox use.
 */
export type { Doc as OuraDocument } from "./Data.js"
export type { OuraCollection, OuraControl, OuraEvent } from "./Shapes.js"
export { COLLECTIONS as OURA_COLLECTIONS, OURA_SCOPES, ouraUserId, PAGE_SIZE as OURA_PAGE_SIZE } from "./Shapes.js"
export type { OuraSimulator } from "./Simulator.js"
export { makeOuraSimulator } from "./Simulator.js"
export { ouraSignature } from "./Webhooks.js"
