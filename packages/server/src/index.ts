/**
 * The server's entry point for the other packages (the CLI, the test harness, the benchmarks): the data model's
 * services and their errors, the credential helpers, and the platform pieces a command needs to open the
 * database and reach providers. The application itself is `@pulsebridge/server/App`, the listener
 * `@pulsebridge/server/Main`, the MCP server over stdio `@pulsebridge/server/mcp/Stdio` and the pure scoring
 * `@pulsebridge/server/scoring`, and what calls providers from outside a request (the HTTP client, the erasure,
 * the token exchange) `@pulsebridge/server/Outbound`: each is loaded only by what needs it, so that a CLI command
 * loads the data services and not the HTTP client and the cluster's definitions too.
 */
export * from "./access/Authentication.js"
export * from "./access/CredentialHash.js"
export * from "./apps/Apps.js"
export * from "./apps/ProviderCredentials.js"
export * from "./connections/ConnectionsRepo.js"
export * from "./connections/ConnectionTokens.js"
export * from "./connections/ProviderAccess.js"
export * from "./Data.js"
export * from "./events/Endpoints.js"
export * from "./journal/BlobStore.js"
export * from "./platform/Database.js"
export * from "./platform/EnvVars.js"
export * from "./platform/Ids.js"
export * from "./platform/ServerBases.js"
export * from "./platform/ServerConfig.js"
export * from "./platform/Tls.js"
export { type Actor, apiKeyActor, Audit, type AuditEntry, byActor, cliActor } from "./portal/operators/Audit.js"
export * from "./portal/operators/Operators.js"
export { CursorInvalid, defaultPageSize, UserDirectoryRepo } from "./portal/pages/UserDirectoryRepo.js"
export * from "./sync/Quarantine.js"
export * from "./users/Export.js"
export * from "./users/Users.js"
