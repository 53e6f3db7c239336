#!/bin/sh
# Named in PRISMA_SCHEMA_ENGINE_BINARY by scripts/gen-prisma.ts: `prisma generate` only needs the
# file to exist. Anything that really runs the native schema engine must fail loudly, not "succeed".
echo "The native Prisma schema engine is not available here. Create migrations with: pnpm migrate:new <service> <name>" >&2
exit 1
