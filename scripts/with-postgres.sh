#!/usr/bin/env bash
# Runs a command with DATABASE_URL pointing at a PostgreSQL database (a throwaway cluster from the
# embedded-postgres dev dependency, or DATABASE_URL's server): see scripts/with-postgres.ts.
#   scripts/with-postgres.sh npx vitest run tests/postgres
# One process (node --import tsx, not the tsx CLI, whose wrapper kills its child on SIGTERM before
# the cluster is removed).
root="$(cd "$(dirname "$0")/.." && pwd)"
exec node --import "$root/node_modules/tsx/dist/loader.mjs" "$root/scripts/with-postgres.ts" "$@"
