export * from "./Catalog.js"
