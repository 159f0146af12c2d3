# member-api as a container: `docker build -t member-api .`, then
#   docker run -p 8080:8080 -v member-data:/data member-api
# The store is SQLite in the /data volume by default; set DATABASE_URL=postgres://… for
# PostgreSQL (compose.yaml does). scripts/container-steps.sh runs these steps without a
# container engine, as an unprivileged user, in CI.

# 1. Build: every dependency, then the TypeScript sources compiled to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY scripts/build.mjs ./scripts/
RUN npm ci --no-audit --no-fund

# 2. What runs: production dependencies only, and better-sqlite3's native module as stage 1
#    built or fetched it (the same base image and Node.js: building it again would give the same file).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node ./node_modules/better-sqlite3/build/Release/

# 3. The image: the compiled server and its production dependencies, run by the node user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATABASE_URL=/data/members.db DEMO_KEY_FILE=/data/demo-api-key
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/member-api.js", "serve"]
