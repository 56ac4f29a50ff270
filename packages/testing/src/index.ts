export * from "./Sandbox.js"
export * as Simulators from "./simulators/index.js"
export * from "./TestDatabase.js"
export * from "./TestServer.js"
