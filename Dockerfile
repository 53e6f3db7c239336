# One image for the gateway and every service; the command picks which one runs:
#   node --import tsx gateway/src/main.ts            (default)
#   node --import tsx services/<name>/src/main.ts    (keys, billing, tasks, docs, search)
# or build with --build-arg TOLLGATE_SERVICE=<name> to make that the default command.
ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS base
ENV CI=true \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1
RUN npm i -g pnpm@12.21.0
WORKDIR /app

# Dependencies first, from the manifests and the lockfile only, so that source edits keep this layer.
FROM base AS deps
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/kit/package.json packages/kit/
COPY packages/system/package.json packages/system/
COPY protos/package.json protos/
COPY gateway/package.json gateway/
COPY services/keys/package.json services/keys/
COPY services/billing/package.json services/billing/
COPY services/tasks/package.json services/tasks/
COPY services/docs/package.json services/docs/
COPY services/search/package.json services/search/
COPY console/package.json console/
# The root postinstall generates the Prisma clients offline from the schemas (scripts/gen-prisma.ts);
# the web console is built in the build stage, once its sources are there.
COPY scripts scripts
COPY services/keys/prisma services/keys/prisma
COPY services/billing/prisma services/billing/prisma
COPY services/tasks/prisma services/tasks/prisma
COPY services/docs/prisma services/docs/prisma
COPY services/search/prisma services/search/prisma
RUN pnpm install --frozen-lockfile

# Sources on top; the generated gRPC code (protos/gen) is committed, so nothing else is generated.
FROM deps AS build
COPY . .
RUN pnpm run gen:check && pnpm exec tsc -p tsconfig.json && pnpm run build:console

FROM ${NODE_IMAGE} AS runtime
ARG TOLLGATE_SERVICE=gateway
ENV NODE_ENV=production \
    TOLLGATE_SERVICE=${TOLLGATE_SERVICE} \
    TOLLGATE_DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080 8443 50051 50052 50053 50054 50055 9464
STOPSIGNAL SIGTERM
CMD ["sh", "-c", "if [ \"$TOLLGATE_SERVICE\" = gateway ]; then exec node --import tsx gateway/src/main.ts; else exec node --import tsx services/$TOLLGATE_SERVICE/src/main.ts; fi"]
