# syntax=docker/dockerfile:1
# Build:  docker build -t portfolio .
# Run:    docker run --env-file .env -p 3000:3000 portfolio   (docs/deploy.md)
# Secrets (EmailJS keys) are given at run time only; none is an ARG or ENV here.
# tests/integration/docker-lint.test.ts lints this file; docker-runtime.test.ts runs its runtime stage.

# Node 24 is the current LTS; the major is pinned, patches come with rebuilds.
FROM node:24-bookworm-slim AS base
# tini as PID 1 forwards SIGTERM to node and reaps zombies.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# All dependencies, for the build. `npm ci` refuses this lockfile (it lacks the
# optional native builds of other platforms), so install from it instead.
FROM base AS deps
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

FROM base AS runtime
ENV NODE_ENV=production \
    PORT=3000
COPY package.json package-lock.json ./
# Production dependencies only. Optional ones are fallbacks a Linux server does not load.
RUN --mount=type=cache,target=/root/.npm npm install --omit=dev --omit=optional --no-audit --no-fund \
 && mkdir outbox && chown node:node outbox
COPY --from=build /app/build ./build
# Unhashed files (the favicon): the server serves them from here with a short cache.
COPY public ./public
# The app's files stay root-owned; it can write only to the outbox (a volume).
USER node
EXPOSE 3000
# slim images have no curl: Node's own fetch checks the health route.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# node runs directly (not through npm) so it gets SIGTERM; the same server as `npm start`.
CMD ["node", "build/server.js"]
