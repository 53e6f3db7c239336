import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const prismaCli = require.resolve('prisma/build/index.js', { paths: [root] });
const engineStub = path.join(__dirname, 'schema-engine-unavailable.sh');

function serviceDirs(): string[] {
  const servicesDir = path.join(root, 'services');
  return fs
    .readdirSync(servicesDir)
    .map((name) => path.join(servicesDir, name))
    .filter((dir) => fs.existsSync(path.join(dir, 'prisma', 'schema.prisma')));
}

function generate(serviceDir: string): Promise<{ dir: string; ok: boolean; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [prismaCli, 'generate', '--schema', 'prisma/schema.prisma'], {
      cwd: serviceDir,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? engineStub,
        CHECKPOINT_DISABLE: '1',
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (err) => resolve({ dir: serviceDir, ok: false, output: `${output}${err.message}`, ms: Date.now() - started }));
    child.on('close', (code) => resolve({ dir: serviceDir, ok: code === 0, output, ms: Date.now() - started }));
  });
}

async function main(): Promise<void> {
  const results = await Promise.all(serviceDirs().map(generate));
  for (const r of results) {
    const name = path.relative(root, r.dir);
    if (r.ok) console.log(`prisma client generated: ${name} (${r.ms} ms)`);
    else console.error(`\nprisma generate FAILED for ${name}:\n${r.output.trim()}\n`);
  }
  if (results.some((r) => !r.ok)) process.exit(1);
}

main().catch((err) => {
  console.error('gen-prisma failed:', err);
  process.exit(1);
});
