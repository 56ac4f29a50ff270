/**
 * The command tree of `pulsebridge`, the operator CLI: the root command over its groups, each in
 * `commands/`. Its commands run on the server's own configuration, database (attached to a running
 * server's embedded database when one holds DATA_DIR) and services, so the CLI and the API can
 * never disagree about what an app, key or user is.
 */
import * as Command from "@effect/cli/Command"
import { apiKeys } from "./commands/ApiKeys.js"
import { apps } from "./commands/Apps.js"
import { audit } from "./commands/Audit.js"
import { mcp } from "./commands/Mcp.js"
import { migrate } from "./commands/Migrate.js"
import { openapi } from "./commands/OpenApi.js"
import { operators } from "./commands/Operators.js"
import { providerCredentials } from "./commands/ProviderCredentials.js"
import { quarantine } from "./commands/Quarantine.js"
import { serve } from "./commands/Serve.js"
import { tokenExchange } from "./commands/TokenExchange.js"
import { users } from "./commands/Users.js"
import { webhookEndpoints } from "./commands/WebhookEndpoints.js"

export const command = Command.make("pulsebridge").pipe(
  Command.withDescription(
    "Operate a PulseBridge server: apps, API keys, users, webhook endpoints, portal operators, the audit log, migrations, the server itself, its MCP server"
  ),
  Command.withSubcommands([
    apps,
    apiKeys,
    providerCredentials,
    users,
    webhookEndpoints,
    operators,
    audit,
    quarantine,
    tokenExchange,
    migrate,
    serve,
    mcp,
    openapi
  ])
)

export const run = Command.run(command, { name: "pulsebridge", version: "0.1.0" })
