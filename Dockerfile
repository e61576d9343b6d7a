# syntax=docker/dockerfile:1

# Build: compile TypeScript and the native addons (better-sqlite3, re2), then drop dev dependencies.
FROM node:20-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Scripts are skipped here because `prepare` needs the sources; the addons are built explicitly.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Run: production dependencies and compiled code only, as an unprivileged user.
FROM node:20-slim
# Every interface, not loopback: inside a container loopback is the container's own, so
# a published port (-p 8080:8080) could reach nothing. The HEALTHCHECK below would work
# either way, since it runs inside. /healthz and /metrics answer anyone who reaches the
# port; /status only with PIPEWATCH_STATUS_TOKEN. Publish it to the host's loopback
# (-p 127.0.0.1:8080:8080) unless other hosts need it.
ENV NODE_ENV=production \
    PIPEWATCH_DATA_DIR=/app/data \
    PIPEWATCH_RULES_DIR=/app/rules \
    PIPEWATCH_HTTP_PORT=8080 \
    PIPEWATCH_HTTP_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY rules ./rules
# Owner-only, as pipewatch makes a data directory itself; a new named volume copies this.
RUN install -d -m 0700 -o node -g node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PIPEWATCH_HTTP_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The executable itself, not `node dist/main.js`: its first line starts node with V8 sized
# for a daemon that mostly waits (see src/main.ts).
ENTRYPOINT ["/app/dist/main.js"]
CMD ["run"]
