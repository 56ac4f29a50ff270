/**
 * The MCP server over stdio (`pulsebridge mcp`): an assistant on the user's machine starts it as a child
 * process with the user's token in its environment. stdout carries the protocol's messages only (the CLI's
 * logs go to stderr); the server runs until the assistant closes stdin. The CLI imports this module when the
 * command runs, so the SDK is not loaded by its other commands.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { makeMcpServer } from "./Server.js"
import type { McpUser } from "./Tools.js"
import { McpTools } from "./Tools.js"

/**
 * Serves the data of the user `user` names (looked up again before each tool call, so a rotated token or a
 * deleted user stops the answers) on this process's stdin and stdout until the client closes the stream.
 */
export const serveStdio = (user: Effect.Effect<Option.Option<McpUser>>) =>
  Effect.gen(function*() {
    const tools = yield* McpTools
    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    const server = makeMcpServer(tools, user, run)
    const transport = new StdioServerTransport()
    yield* Effect.async<void>((resume) => {
      server.onclose = () => resume(Effect.void)
      // The transport notices a closed stdin only through the stream's end.
      process.stdin.once("end", () => void server.close())
      server.connect(transport).catch(() => resume(Effect.void))
      return Effect.promise(() => server.close())
    })
  }).pipe(Effect.provide(McpTools.Default))
