# syntax=docker/dockerfile:1
# One image per service:
#   docker build --build-arg SERVICE=gateway --build-arg VERSION=1.4.0 \
#     --build-arg REVISION=$(git rev-parse HEAD) -t preflight-gateway:1.4.0 .
# The process is `node services/$SERVICE/dist/main.js` (a bundle of the service and the
# @preflight/* libraries, scripts/build-service.mjs) with the service's third-party production
# dependencies. It runs as uid 10001, writes nothing outside /tmp (read-only root filesystem)
# and, as PID 1, drains on SIGTERM (libs/http). `... main.js migrate` applies migrations.

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- every workspace's package.json + the lockfile: the only inputs of `npm ci`, so the
# dependency layers below stay cached while sources change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /out \
 && find . -name node_modules -prune -o -name package.json -print \
    | tar -cf - --files-from=- package-lock.json | tar -xf - -C /out

# ---- build: full install (esbuild is a dev dependency), bundle one service.
FROM ${NODE_IMAGE} AS build
ARG SERVICE
RUN test -n "$SERVICE" || (echo "--build-arg SERVICE=<gateway|campaign|issue|webhook|delivery|integration|console> is required" >&2; exit 1)
WORKDIR /src
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN node scripts/build-service.mjs "$SERVICE"

# ---- production dependencies of that service only (and of the libraries it uses).
FROM ${NODE_IMAGE} AS prod-deps
ARG SERVICE
WORKDIR /app
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --workspace "services/$SERVICE" --ignore-scripts --no-audit --no-fund \
 # The workspace libraries are bundled; their links would point at sources the image lacks.
 && rm -rf node_modules/@preflight

# ---- runtime
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="preflight-${SERVICE}" \
      org.opencontainers.image.description="Preflight ${SERVICE} service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.vendor="Preflight" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    PREFLIGHT_SERVICE=${SERVICE} \
    PREFLIGHT_VERSION=${VERSION} \
    HOME=/tmp
# No package manager at run time; a non-root user with a fixed uid (runAsUser in the charts).
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
 && groupadd --gid 10001 preflight \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin preflight
WORKDIR /app
# Owned by root and read-only to the process.
COPY --from=prod-deps /app/ ./
COPY --from=build /src/services/${SERVICE}/dist/ ./services/${SERVICE}/dist/
# CMD cannot expand build args, so the entry is linked to a fixed name; node resolves the link,
# so packages are found from services/$SERVICE/dist as in the repo.
RUN ln -s "services/${SERVICE}/dist/main.js" /app/main.js
USER 10001:10001
# Exec form: node is PID 1 and receives SIGTERM itself. The charts run the same file by its
# full path: ["node", "services/<service>/dist/main.js"].
CMD ["node", "/app/main.js"]
