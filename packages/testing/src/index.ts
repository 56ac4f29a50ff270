export * from "./ChildServer.js"
export * from "./Portal.js"
export * from "./TestDatabase.js"
export * from "./TestServer.js"
