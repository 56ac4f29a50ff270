# PulseBridge as a container image: compiled JavaScript on Node 20, production dependencies only,
# run as the unprivileged `node` user. Build: `docker build -t pulsebridge .`
# Run (see docs/deployment.md): `docker run -e SECRET_KEY=... -e DATABASE_URL=... -p 8443:8443 pulsebridge`
# The image's default command is `serve`; any other `pulsebridge` command replaces it
# (`docker run --rm ... pulsebridge apps create --name NAME`).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install every dependency, compile, then drop the development ones ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

# The manifests alone first, so that the dependency layer is reused until they change.
COPY package.json package-lock.json ./
COPY packages/domain/package.json packages/domain/
COPY packages/providers/package.json packages/providers/
COPY packages/sandbox/package.json packages/sandbox/
COPY packages/server/package.json packages/server/
COPY packages/cli/package.json packages/cli/
COPY packages/cli/bin packages/cli/bin/
COPY packages/testing/package.json packages/testing/
RUN npm ci

COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
# The CLI's compilation builds every package it imports (domain, providers, sandbox, server).
RUN npm run build && npm prune --omit=dev

# ---- runtime: the compiled packages and the production node_modules, nothing else ----
FROM ${NODE_IMAGE} AS runtime

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8443 \
    DATA_DIR=/var/lib/pulsebridge \
    LOG_FORMAT=json \
    RUNNER_PORT=34431

WORKDIR /app
# Owned by root and read-only to the server's user: the process cannot change its own code.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules/
COPY --from=build /app/packages/domain/package.json packages/domain/
COPY --from=build /app/packages/domain/build/src packages/domain/build/src/
COPY --from=build /app/packages/providers/package.json packages/providers/
COPY --from=build /app/packages/providers/build/src packages/providers/build/src/
COPY --from=build /app/packages/sandbox/package.json packages/sandbox/
COPY --from=build /app/packages/sandbox/build/src packages/sandbox/build/src/
COPY --from=build /app/packages/server/package.json packages/server/
COPY --from=build /app/packages/server/build/src packages/server/build/src/
COPY --from=build /app/packages/cli/package.json packages/cli/
COPY --from=build /app/packages/cli/build/src packages/cli/build/src/
COPY --from=build /app/packages/cli/bin packages/cli/bin/
COPY deploy/healthcheck.mjs deploy/

# The data directory (meal photos under blobs/, and the embedded database, certificate and key when
# those are not configured) is the one place the server writes.
RUN ln -s /app/packages/cli/bin/pulsebridge-compiled.mjs /usr/local/bin/pulsebridge \
    && mkdir -p /var/lib/pulsebridge \
    && chown node:node /var/lib/pulsebridge
VOLUME /var/lib/pulsebridge

USER node

# 8443: the API (HTTPS, or plain HTTP with TRUST_PROXY=true behind a TLS proxy);
# 34431: the cluster runner of a ROLE=worker process, which the other processes connect to.
EXPOSE 8443 34431

HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "/app/deploy/healthcheck.mjs", "/health/ready"]

ENTRYPOINT ["node", "/app/packages/cli/bin/pulsebridge-compiled.mjs"]
CMD ["serve"]
