/**
 * The environment variables the server and the CLI read, each named once. The configuration's decoder
 * (`ServerConfig.ts`), the logging and key-rotation settings read beside it, the harnesses and scripts that start a
 * server without the caller's variables, and the README's table of variables (kept equal by a test) all take the
 * names from here. A module without imports, so that plain Node scripts can load it cheaply.
 */

export const EnvVars = {
  port: "PORT",
  host: "HOST",
  publicUrl: "PUBLIC_URL",
  databaseUrl: "DATABASE_URL",
  dataDir: "DATA_DIR",
  tlsCertFile: "TLS_CERT_FILE",
  tlsKeyFile: "TLS_KEY_FILE",
  trustProxy: "TRUST_PROXY",
  hstsMaxAge: "HSTS_MAX_AGE",
  secretKey: "SECRET_KEY",
  secretKeysOld: "SECRET_KEYS_OLD",
  sandbox: "SANDBOX",
  analyzer: "ANALYZER",
  analyzerBaseUrl: "ANALYZER_BASE_URL",
  analyzerModel: "ANALYZER_MODEL",
  analyzerApiKey: "ANALYZER_API_KEY",
  role: "ROLE",
  production: "NODE_ENV",
  logLevel: "LOG_LEVEL",
  logFormat: "LOG_FORMAT",
  heapGrowthPercent: "HEAP_GROWTH_PERCENT",
  runnerHost: "RUNNER_HOST",
  runnerPort: "RUNNER_PORT",
  syncCron: "SYNC_CRON",
  backfillDays: "BACKFILL_DAYS",
  rateLimit: "RATE_LIMIT",
  rateLimitApiKey: "RATE_LIMIT_API_KEY",
  rateLimitUserToken: "RATE_LIMIT_USER_TOKEN",
  rateLimitAddress: "RATE_LIMIT_ADDRESS",
  requestTimeoutMs: "REQUEST_TIMEOUT_MS",
  uploadTimeoutMs: "UPLOAD_TIMEOUT_MS",
  statementTimeoutMs: "STATEMENT_TIMEOUT_MS",
  databasePoolSize: "DATABASE_POOL_SIZE",
  syncStoreConcurrency: "SYNC_STORE_CONCURRENCY",
  syncConcurrency: "SYNC_CONCURRENCY",
  dexcomOAuthPath: "DEXCOM_OAUTH_PATH",
  webhookAllowPrivate: "WEBHOOK_ALLOW_PRIVATE",
  webhookCaFile: "WEBHOOK_CA_FILE",
  webhookDelivery: "WEBHOOK_DELIVERY",
  signingKeysUrls: "PROVIDER_SIGNING_KEYS_URLS",
  mcpAllowedOrigins: "MCP_ALLOWED_ORIGINS",
  metricsToken: "METRICS_TOKEN",
  metricsPort: "METRICS_PORT",
  metricsHost: "METRICS_HOST",
  otelEndpoint: "OTEL_EXPORTER_OTLP_ENDPOINT",
  otelServiceName: "OTEL_SERVICE_NAME",
  otelMetricExportIntervalMs: "OTEL_METRIC_EXPORT_INTERVAL"
} as const

/** Every variable of `EnvVars`: what a child process started for a test or a benchmark is given none of. */
export const envVarNames: ReadonlyArray<string> = Object.values(EnvVars)
