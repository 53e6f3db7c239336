#!/bin/sh
# Runs once, when the PostgreSQL volume is first initialised: one database per service,
# named in TOLLGATE_DATABASES (space-separated), owned by POSTGRES_USER.
set -eu
for db in ${TOLLGATE_DATABASES}; do
  echo "creating database ${db}"
  psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER}" --dbname postgres \
    -c "CREATE DATABASE \"${db}\" OWNER \"${POSTGRES_USER}\""
done
