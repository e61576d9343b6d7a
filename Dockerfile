# syntax=docker/dockerfile:1

# Every stage on the same Node.js: 24 LTS on Debian slim, pinned by tag.
ARG NODE_IMAGE=node:24-slim

# Pack: the package `npm pack` makes anywhere. Its prepack compiles the TypeScript, which
# needs the dev dependencies, not the native addons: install scripts are skipped.
FROM ${NODE_IMAGE} AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json LICENSE README.md slack-app-manifest.yaml ./
COPY src ./src
COPY rules ./rules
COPY docker/rules ./docker/rules
COPY docs ./docs
RUN npm pack --pack-destination /tmp && mv /tmp/pipewatch-*.tgz /tmp/pipewatch.tgz

# Install: the tarball as users install it, under /opt/pipewatch. Its native addon
# (better-sqlite3) is built here, for this Node.js, with the compilers.
FROM ${NODE_IMAGE} AS install
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY --from=pack /tmp/pipewatch.tgz /tmp/pipewatch.tgz
RUN npm install --global --prefix /opt/pipewatch --no-audit --no-fund /tmp/pipewatch.tgz

# Run: the installed package alone, as an unprivileged user.
FROM ${NODE_IMAGE}
# Every interface, not loopback: inside a container loopback is the container's own, so
# a published port (-p 8080:8080) could reach nothing. The HEALTHCHECK below would work
# either way, since it runs inside. /healthz and /metrics answer anyone who reaches the
# port; /status only with PIPEWATCH_STATUS_TOKEN. Publish it to the host's loopback
# (-p 127.0.0.1:8080:8080) unless other hosts need it.
ENV NODE_ENV=production \
    PATH=/opt/pipewatch/bin:$PATH \
    PIPEWATCH_DATA_DIR=/app/data \
    PIPEWATCH_RULES_DIR=/app/rules \
    PIPEWATCH_HTTP_PORT=8080 \
    PIPEWATCH_HTTP_HOST=0.0.0.0
WORKDIR /app
# A font for the labels of OAC charts: the slim image has none, and a chart without
# labels is not sent (see src/chart/oac-chart.ts).
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
COPY --from=install /opt/pipewatch /opt/pipewatch
# Rules that print to the container's log and need no credentials, so that the container
# starts with none; mount your own over /app/rules (docs/operations.md, Docker).
COPY --from=install /opt/pipewatch/lib/node_modules/pipewatch/docker/rules /app/rules
# Owner-only, as pipewatch makes a data directory itself; a new named volume copies this.
RUN install -d -m 0700 -o node -g node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PIPEWATCH_HTTP_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The executable itself, not `node …/main.js`: its first line starts node with V8 sized
# for a daemon that mostly waits (see src/main.ts).
ENTRYPOINT ["/opt/pipewatch/bin/pipewatch"]
CMD ["run"]
