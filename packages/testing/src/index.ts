export * from "./Sandbox.js"
export * from "./TestDatabase.js"
export * from "./TestServer.js"
export * as Simulators from "./simulators/index.js"
