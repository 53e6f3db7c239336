/** `tsx scripts/build-console.ts [--force]`: builds the web console when missing or stale (postinstall runs it). */
import { buildConsole } from './console-build';

process.exit(buildConsole(process.argv.includes('--force')) ? 0 : 1);
