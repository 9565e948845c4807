# syntax=docker/dockerfile:1
# The mooring agent image. No build step: the sources are TypeScript that Node 24 runs directly
# (type stripping), so the image holds package.json, production dependencies, bin/ and src/. The
# sandbox Kubernetes API's packages are development dependencies: `mooring sandbox` and
# `mooring kube-api` are for a clone, and from the image they say how to add them.
#
#   docker build -t mooring:dev --build-arg VERSION="$(node -p 'require("./package.json").version')" \
#     --build-arg REVISION="$(git rev-parse HEAD)" .

# The base pinned by digest: a rebuild of the same commit starts from the same bytes, whatever the
# tag points at since. The digest is the multi-arch index of node:24-slim (Node 24.19.0, Debian
# bookworm, linux/amd64 and linux/arm64 among its platforms) as Docker Official Images published
# it on 2026-08-03. To move on: `docker buildx imagetools inspect node:24-slim` prints the tag's
# current index digest; set it here and in the base.digest label below.
ARG NODE_IMAGE=node:24-slim@sha256:cd84903a12dbd26b46f1f3b8144a2568c41c5d37ddd0c7a80a34c7a19786b35f

# Production dependencies only; install scripts are not needed and not run.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="mooring" \
      org.opencontainers.image.description="A small, safe pull-based Kubernetes deployment agent" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/mooring-dev/mooring" \
      org.opencontainers.image.base.name="docker.io/library/node:24-slim" \
      org.opencontainers.image.base.digest="sha256:cd84903a12dbd26b46f1f3b8144a2568c41c5d37ddd0c7a80a34c7a19786b35f"
ENV NODE_ENV=production \
    HOME=/tmp
WORKDIR /app
# Owned by root and not writable by the agent's user: the root filesystem is read-only anyway.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
# A compile cache made at build time: the agent starts without stripping types or compiling its
# modules (faster, and the type stripper is never loaded). Read-only at run time, like the rest
# of /app.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
# The heap follows the container's memory limit: V8's old generation may take 60% of it, and
# 4 MiB semi-spaces (a young generation of 12 MiB at most) keep the whole heap below where half
# the limit and 16 MiB semi-spaces had it, with more room for the listener's data (the agent's
# memory budget, src/agent/memory-budget.ts, reads the old generation); 8 MiB ones held more
# resident memory for no CPU saved. Under a limit Node's default heap ceiling does not follow the
# limit: above the chart's 256Mi (the kernel kills the pod before V8 collects hard) and too low
# for a large listener. A heap sized by a small limit also gets V8's smallest young generation,
# and the agent then spends much of its CPU in GC while converging (bench/README.md, "Measured
# decisions"). Override with NODE_OPTIONS in the chart's extraEnv.
# Node 24 and 22.21 know --max-old-space-size-percentage; a NODE_IMAGE whose Node does not
# refuses to start.
ENV NODE_OPTIONS="--max-old-space-size-percentage=60 --max-semi-space-size=4"
# One glibc malloc arena for all of Node's threads instead of one per thread that allocates
# (V8's compiler and GC helpers, libuv's pool): the buffers of thousands of requests freed in one
# arena are reused there, not left behind in several (bench/README.md, "Measured decisions").
ENV MALLOC_ARENA_MAX=1
RUN node --input-type=module -e "import m from 'node:module'; m.enableCompileCache(); for (const c of ['run', 'render', 'diff', 'status', 'control-plane']) await import('/app/src/cli/' + c + '.ts'); m.flushCompileCache();"
# The same uid:gid the Helm chart's securityContext sets (runAsNonRoot needs a numeric user).
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["node", "/app/bin/mooring.js"]
CMD ["run"]
