/**
 * The operator CLI of PulseBridge as a library: its command tree and the runner over process arguments.
 */
export { command, run } from "./Cli.js"
