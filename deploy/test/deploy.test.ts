import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { APPS, REPO, SERVICE_NAMES, appFacts } from './support/apps';
import { COMPOSE_PATH, commandOf, containerEnv, loadCompose } from './support/compose';
import { find, loadManifests, resolveEnv, type EnvEntry } from './support/kubernetes';

const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');

function hasDockerCompose(): boolean {
  return spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
}

// The Dockerfile, and docker-compose.yml against deploy/k8s: one system described twice.
describe('deployment files together', () => {
  const compose = loadCompose();
  const manifests = loadManifests();
  const k8sContainer = (name: string) => find(manifests, 'Deployment', name)!.spec.template.spec.containers[0];

  it.each(APPS)('%s: the same entry point, gRPC and metrics ports in compose and in Kubernetes', (name) => {
    expect(k8sContainer(name).command).toEqual(commandOf(compose.services[name]));
    const k8sEnv = resolveEnv(k8sContainer(name).env as EnvEntry[], manifests).env;
    const composeEnv = containerEnv(compose.services[name]).env;
    for (const key of ['GRPC_PORT', 'METRICS_PORT', 'PORT', 'HTTPS_PORT', 'KEYS_GRPC_ADDR', 'BILLING_GRPC_ADDR', 'TASKS_GRPC_ADDR', 'DOCS_GRPC_ADDR', 'SEARCH_GRPC_ADDR']) {
      expect({ key, k8s: k8sEnv[key] }).toEqual({ key, k8s: composeEnv[key] });
    }
  });

  it.each(APPS)('%s: the same variable names in both, apart from settings that only make sense behind a Kubernetes ingress', (name) => {
    const ingressOnly = new Set(['TRUST_PROXY']);
    const k8sNames = (k8sContainer(name).env as EnvEntry[]).map((e) => e.name).filter((n) => !ingressOnly.has(n));
    expect(k8sNames.sort()).toEqual(containerEnv(compose.services[name]).names.sort());
  });

  it('the Dockerfile installs with the frozen lockfile and the pinned pnpm, and runs as a non-root user', () => {
    const { packageManager } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { packageManager?: string };
    expect(dockerfile).toContain('npm i -g pnpm@12.21.0');
    if (packageManager) expect(packageManager).toMatch(/^pnpm@12\.21\.0/);
    expect(dockerfile).toMatch(/RUN pnpm install --frozen-lockfile\n/);
    const users = [...dockerfile.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]);
    expect(users.at(-1)).toBe('node');
  });

  it('the Dockerfile copies every workspace package manifest and every Prisma schema before installing', () => {
    const workspace = parse(readFileSync(join(REPO, 'pnpm-workspace.yaml'), 'utf8')) as { packages: string[] };
    const listed = execFileSync('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: REPO, encoding: 'utf8' });
    const dirs = (JSON.parse(listed) as Array<{ path: string }>).map((p) => p.path.slice(REPO.length + 1)).filter(Boolean);
    expect(dirs.length).toBeGreaterThanOrEqual(workspace.packages.length);
    const installAt = dockerfile.indexOf('RUN pnpm install');
    for (const dir of dirs) expect({ dir, copied: dockerfile.lastIndexOf(`COPY ${dir}/package.json ${dir}/`, installAt) >= 0 }).toEqual({ dir, copied: true });
    for (const s of SERVICE_NAMES) expect(dockerfile.lastIndexOf(`COPY services/${s}/prisma services/${s}/prisma`, installAt)).toBeGreaterThan(0);
    expect(dockerfile.lastIndexOf('COPY scripts scripts', installAt)).toBeGreaterThan(0);
  });

  it('the image’s default command starts the gateway, or the service named by TOLLGATE_SERVICE', () => {
    expect(dockerfile).toContain('ARG TOLLGATE_SERVICE=gateway');
    expect(dockerfile).toContain('exec node --import tsx gateway/src/main.ts');
    expect(dockerfile).toContain('exec node --import tsx services/$TOLLGATE_SERVICE/src/main.ts');
    for (const name of APPS) expect(appFacts(name).main).toMatch(name === 'gateway' ? /^gateway\// : new RegExp(`^services/${name}/`));
  });

  it('docker-compose (1.29, offline) accepts the compose file', () => {
    if (!hasDockerCompose()) {
      console.warn(
        `\n${'!'.repeat(78)}\n!! docker-compose is not installed: the \`docker-compose config -q\` check is SKIPPED.\n` +
          `!! apt-get install docker-compose  (Debian's 1.29 works offline) to run it.\n${'!'.repeat(78)}\n`,
      );
      return;
    }
    const run = spawnSync('docker-compose', ['-f', COMPOSE_PATH, 'config', '-q'], { cwd: REPO, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({ status: 0, stderr: '' });
  });
});
