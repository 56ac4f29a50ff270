export * from "./TestDatabase.js"
export * from "./TestServer.js"
