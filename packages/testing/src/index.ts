export * from "./ChildServer.js"
export * from "./TestDatabase.js"
export * from "./TestServer.js"
