# PulseBridge as a container image: compiled JavaScript on Node 24 (the active LTS), production dependencies only,
# run as the unprivileged `node` user. Build: `docker build -t pulsebridge .`
# Run (see docs/deployment.md): `docker run -e SECRET_KEY=... -e DATABASE_URL=... -p 8443:8443 pulsebridge`
# The image's default command is `serve`; any other `pulsebridge` command replaces it
# (`docker run --rm ... pulsebridge apps create --name NAME`).

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: install every dependency, compile, then drop what does not run ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

# The whole workspace (.dockerignore keeps out local state, build output and tests): install scripts of the
# workspace itself, such as the build of a browser bundle into a package's dist/, need their sources.
COPY . .
RUN npm ci

# The CLI's compilation builds every package it imports; then the development dependencies, the test
# harness and every source file go, leaving each package's package.json, build/src and any built dist/.
RUN npm run build \
    && npm prune --omit=dev \
    && rm -rf packages/testing \
    && rm -rf packages/*/src packages/*/test packages/*/ui packages/*/scripts packages/*/.tsbuildinfo \
              packages/*/tsconfig*.json packages/*/vitest.config.ts \
    && find packages -name "*.d.ts" -delete -o -name "*.d.ts.map" -delete

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
COPY --from=build /app/packages packages/
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
