import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const SOURCE_ROOTS = ['gateway/src', 'packages', 'services'];
const SKIPPED = new Set(['node_modules', 'generated', 'test', 'dist']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !/\.(spec|test)\.tsx?$/.test(name) ? [path] : [];
  });
}

// Request context travels explicitly (CallContext, CallSettings, message headers): an async hook
// or an AsyncLocalStorage anywhere in a thread hooks every promise of it.
describe('request context without async hooks', () => {
  it('no product source uses async_hooks', () => {
    const files = SOURCE_ROOTS.flatMap((r) => sources(join(ROOT, r)));
    expect(files.length).toBeGreaterThan(100);
    // AsyncResource alone hooks nothing (kit/src/grpc/async-resource-bind.ts replaces one of its methods).
    const onlyAsyncResource = /^import \{ AsyncResource \} from 'node:async_hooks';$/m;
    const offenders = files.filter((f) => /AsyncLocalStorage|createHook\(|from 'node:async_hooks'|require\('(node:)?async_hooks'\)/.test(readFileSync(f, 'utf8').replace(onlyAsyncResource, '')));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
