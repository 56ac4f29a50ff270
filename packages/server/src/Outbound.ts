/**
 * The server's entry point for what calls providers from outside a request (`@pulsebridge/server/Outbound`): the
 * provider HTTP client and the certificate it trusts, the erasure (which revokes each grant) and the token exchange.
 * Apart from the index, because these bring the HTTP client and the cluster's definitions with them: a CLI command
 * that does neither loads none of it.
 */
export * from "./connections/TokenExchange.js"
export * from "./platform/HttpServer.js"
export * from "./users/Erasure.js"
