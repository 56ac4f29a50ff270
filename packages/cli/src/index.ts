/**
 * The operator CLI of PulseBridge as a library: its command tree, the runner over process arguments, and `main`,
 * the runner with the executable's error reporting.
 */
export { command, run } from "./Cli.js"
export { CommandDatabase, CommandStdin } from "./commands/Runtime.js"
export { main } from "./Main.js"
