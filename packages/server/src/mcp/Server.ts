/**
 * The MCP server of one user over the official TypeScript SDK, for either transport (`Http.ts`: streamable
 * HTTP at `/mcp`; the CLI's `pulsebridge mcp`: stdio). It offers the tools of `Tools.ts` and nothing else:
 * no resources, prompts or sampling. The SDK's low-level `Server` is used rather than `McpServer`, whose
 * tool registry takes only zod schemas: the tools' schemas are the domain's Effect schemas, turned into JSON
 * Schema for the listing and used as they are to decode arguments.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { CallToolResult, ListToolsResult } from "@modelcontextprotocol/sdk/types.js"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { McpScopes, toolAllowed, toolScopes } from "./oauth/Rules.js"
import type { McpTools, McpUser, ToolAnswer } from "./Tools.js"

export const serverInfo = { name: "pulsebridge", title: "PulseBridge", version: "0.1.0" } as const

const instructions = "Read-only access to one person's wearable and health data as PulseBridge holds it: " +
  "connections, daily activity, daily load (strain), glucose summaries, the nutrition journal, glucose responses " +
  "to meals, daily and weekly scores with their explanations, and data coverage. Dates are the person's local " +
  "dates (YYYY-MM-DD); call get_profile for their time zone and today. Ranges are bounded; an answer cut to its " +
  "size bound says in `continueFrom` where to continue. Each answer's text is a compact summary and table (pass " +
  "`format: \"json\"` for the full data as JSON); its structured content holds the full typed data."

const answerOf = (answer: ToolAnswer): CallToolResult =>
  answer._tag === "Answer"
    ? { content: [{ type: "text", text: answer.text }], structuredContent: answer.json }
    : { content: [{ type: "text", text: answer.message }], isError: true }

/**
 * A server for one user's data, to connect to one transport. `user` is asked before each tool call: the
 * user, or none once the token no longer opens it (a long-running stdio server outlives a rotation or an
 * erasure); an HTTP request has checked it already. `run` runs an effect in the caller's runtime (its
 * database, tracing and logs).
 */
export const makeMcpServer = (
  tools: McpTools,
  user: Effect.Effect<Option.Option<McpUser>>,
  run: <A>(effect: Effect.Effect<A>) => Promise<A>,
  /** The scopes of an MCP token (`pb_mt_`): only the tools they open are listed and called. None: every tool. */
  scopes?: ReadonlySet<string>
): Server => {
  const server = new Server(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions })
  const allowed = (name: string) => scopes === undefined || toolAllowed(name, scopes)
  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({
    tools: scopes === undefined ? tools.listing : tools.listing.filter((tool) => allowed(tool.name))
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find(request.params.name)
    if (tool === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name.slice(0, 100)}`)
    }
    if (!allowed(tool.name)) {
      return answerOf({
        _tag: "ToolError",
        message: `This token's scopes do not cover ${tool.name} (it needs: ${
          (toolScopes[tool.name] ?? McpScopes).join(", ")
        }); ask the user to grant that data`
      })
    }
    const current = await run(user)
    if (Option.isNone(current)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        "The user token no longer opens this user: it was rotated or revoked, or the user was deleted"
      )
    }
    return answerOf(await run(tool.call(current.value, request.params.arguments)))
  })
  return server
}
