/**
 * Builds the web console (console/ → console/dist) when it is missing or older than its sources.
 * Run by `pnpm install` (postinstall) and again by `pnpm start` if needed, so the README's two
 * commands do everything. `--force` rebuilds regardless.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const consoleDir = path.join(root, 'console');
const built = path.join(consoleDir, 'dist', 'index.html');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

export function consoleIsStale(): boolean {
  if (!fs.existsSync(built)) return true;
  const sources = Math.max(newestSource(path.join(consoleDir, 'src')), ...['index.html', 'vite.config.ts', 'package.json'].map((f) => fs.statSync(path.join(consoleDir, f)).mtimeMs));
  return sources > fs.statSync(built).mtimeMs;
}

/** Returns false (and says why) when the build could not run; the gateway then answers /console with 503. */
export function buildConsole(force = false): boolean {
  if (!fs.existsSync(path.join(consoleDir, 'src'))) {
    console.log('console: no sources here (an image layer with manifests only); not built');
    return true;
  }
  if (!force && !consoleIsStale()) return true;
  const vite = path.join(consoleDir, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!fs.existsSync(vite)) {
    console.error('console: vite is not installed (run pnpm install); the console is not built');
    return false;
  }
  console.log('console: building the web console (console/dist)…');
  const out = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: consoleDir, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (out.status !== 0) {
    console.error('console: the build failed; /console answers 503 until it succeeds');
    return false;
  }
  return true;
}

