/**
 * Regenerates protos/gen from protos/**\/*.proto with buf (from npm) and the local ts-proto plugin.
 * `--check` generates into a temporary folder and fails if protos/gen differs (stale generated code).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(__dirname, '..');
const protosDir = join(root, 'protos');
const genDir = join(protosDir, 'gen');
const buf = join(root, 'node_modules', '.bin', 'buf');

function generate(into: string): void {
  const scratch = mkdtempSync(join(tmpdir(), 'tollgate-gen-'));
  try {
    cpSync(join(protosDir, 'buf.yaml'), join(scratch, 'buf.yaml'));
    cpSync(join(protosDir, 'tollgate'), join(scratch, 'tollgate'), { recursive: true });
    const template = readFileSync(join(protosDir, 'buf.gen.yaml'), 'utf8')
      .replace('../node_modules/.bin/protoc-gen-ts_proto', join(root, 'node_modules', '.bin', 'protoc-gen-ts_proto'))
      .replace('out: gen', `out: ${into}`);
    execFileSync(buf, ['generate', '--template', template], { cwd: scratch, stdio: 'inherit' });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

function differences(a: string, b: string): string[] {
  const filesA = new Set(listFiles(a).map((f) => relative(a, f)));
  const filesB = new Set(listFiles(b).map((f) => relative(b, f)));
  const all = new Set([...filesA, ...filesB]);
  return [...all].filter((f) => !filesA.has(f) || !filesB.has(f) || readFileSync(join(a, f), 'utf8') !== readFileSync(join(b, f), 'utf8'));
}

if (process.argv.includes('--check')) {
  const fresh = mkdtempSync(join(tmpdir(), 'tollgate-gen-check-'));
  try {
    generate(fresh);
    const stale = differences(fresh, genDir);
    if (stale.length > 0) {
      console.error(`protos/gen is stale; run \`pnpm gen\`. Differing files:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log('protos/gen is up to date');
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
} else {
  const fresh = mkdtempSync(join(tmpdir(), 'tollgate-gen-out-'));
  generate(fresh);
  rmSync(genDir, { recursive: true, force: true });
  cpSync(fresh, genDir, { recursive: true });
  rmSync(fresh, { recursive: true, force: true });
  console.log('generated protos/gen');
}
