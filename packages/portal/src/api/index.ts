/**
 * The admin portal's JSON API (`/portal/api/...`), used only by the portal's own pages. It is not part
 * of the public contract: its groups are left out of `/openapi.json` and the typed client, and it may
 * change with the pages. Operators authenticate with a session cookie (`PortalAuth`); every change also
 * carries the session's CSRF token in `X-CSRF-Token`.
 *
 * It lives beside the pages so that they read their JSON shapes from these schemas (as types only) and
 * the server implements the same groups: the server adds them to the contract's `Api` (`ServedApi`), so
 * they share its decoding, error bodies, request logging, deadlines and rate limits.
 */
export * from "./Account.js"
export * from "./Apps.js"
export * from "./Operators.js"
export * from "./Overview.js"
export * from "./Paging.js"
export * from "./Sandbox.js"
export * from "./Session.js"
export * from "./Users.js"
export * from "./Webhooks.js"
