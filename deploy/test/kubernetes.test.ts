import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { APPS, SERVICE_NAMES, addressedService, appFacts, configProblems, isService, type AppFacts, type AppName } from './support/apps';
import { K8S_DIR, SECRET_TEMPLATE, find, loadKustomization, loadManifests, resolveEnv, type EnvEntry, type Manifest } from './support/kubernetes';

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Namespace': Namespace,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

// deploy/k8s against the Kubernetes API schemas, against itself, and against the code.
describe('Kubernetes manifests', () => {
  const all = loadManifests();
  const facts = Object.fromEntries(APPS.map((a) => [a, appFacts(a)])) as Record<AppName, AppFacts>;
  const deployment = (name: string) => find(all, 'Deployment', name)!;
  const container = (name: string) => deployment(name).spec.template.spec.containers.find((c: { name: string }) => c.name === name);
  const envOf = (name: AppName) => resolveEnv(container(name).env as EnvEntry[], all);
  const portNamed = (name: AppName, port: string): number => container(name).ports.find((p: { name: string }) => p.name === port)?.containerPort;

  it('holds only kinds this test knows, each valid against the Kubernetes API schema', () => {
    for (const { file, doc } of all) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect({ file, kind: doc.kind, known: Boolean(Model) }).toEqual({ file, kind: doc.kind, known: true });
      expect(() => new Model(doc).validate()).not.toThrow();
    }
  });

  it('the kustomization lists every manifest file except the Secret template, and each exists', () => {
    const k = loadKustomization();
    const files = readdirSync(K8S_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && f !== SECRET_TEMPLATE);
    expect([...k.resources].sort()).toEqual(files.sort());
    for (const r of k.resources) expect(existsSync(join(K8S_DIR, r))).toBe(true);
    expect(k.namespace).toBe(find(all, 'Namespace', k.namespace!)?.metadata.name);
  });

  it.each(APPS)('%s: a Deployment and a Service whose selector matches its pods', (name) => {
    const d = deployment(name);
    const s = find(all, 'Service', name)!;
    expect(d).toBeDefined();
    expect(s).toBeDefined();
    expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    expect(d.spec.template.metadata.labels).toMatchObject(s.spec.selector);
  });

  it.each(APPS)('%s: runs the one image the kustomization sets, non-root, with its own entry point', (name) => {
    const images = loadKustomization().images ?? [];
    const c = container(name);
    expect(images.map((i) => i.name)).toContain(c.image);
    expect(c.command).toEqual(['node', '--import', 'tsx', facts[name].main]);
    expect(deployment(name).spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(deployment(name).spec.template.spec.securityContext.runAsUser).toBeGreaterThan(0);
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false });
  });

  it.each(APPS)('%s: sets only variables its configuration reads, all it requires, resolvable and accepted', (name) => {
    const entries = container(name).env as EnvEntry[];
    const names = entries.map((e) => e.name);
    expect(names.filter((n) => !facts[name].reads.read.has(n))).toEqual([]);
    expect([...facts[name].reads.required].filter((n) => !names.includes(n))).toEqual([]);
    const { env, problems } = envOf(name);
    expect(problems).toEqual([]);
    expect(configProblems(facts[name], env)).toEqual([]);
  });

  it.each(SERVICE_NAMES)('%s: GRPC_PORT = the grpc container port = the Service target; probes use the gRPC health service on it', (name) => {
    const { env } = envOf(name);
    const port = Number(env.GRPC_PORT);
    expect(env.GRPC_HOST).toBe('0.0.0.0');
    expect(portNamed(name, 'grpc')).toBe(port);
    const servicePort = find(all, 'Service', name)!.spec.ports.find((p: { name: string }) => p.name === 'grpc');
    expect(servicePort).toMatchObject({ port, targetPort: 'grpc' });
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) expect(container(name)[probe]).toMatchObject({ grpc: { port } });
  });

  it.each(APPS.filter(isService))('%s: METRICS_PORT = the metrics container port = the scrape annotation', (name) => {
    const port = Number(envOf(name).env.METRICS_PORT);
    expect(port).toBeGreaterThan(0);
    expect(portNamed(name, 'metrics')).toBe(port);
    expect(deployment(name).spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });
  });

  it('gateway: http/https container ports = PORT/HTTPS_PORT; readiness asks /readyz, liveness /healthz, Prometheus scrapes /metrics on http', () => {
    const { env } = envOf('gateway');
    expect(portNamed('gateway', 'http')).toBe(Number(env.PORT));
    expect(portNamed('gateway', 'https')).toBe(Number(env.HTTPS_PORT));
    expect(env.HOST).toBe('0.0.0.0');
    expect(container('gateway').readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'http' } });
    expect(container('gateway').livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'http' } });
    expect(deployment('gateway').spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/port': env.PORT, 'prometheus.io/path': '/metrics' });
  });

  it.each(APPS)('%s: every *_GRPC_ADDR it reads names that service’s Service and gRPC port', (name) => {
    const { env } = envOf(name);
    const addressed = [...facts[name].reads.read].filter((n) => addressedService(n));
    if (name === 'gateway') expect(addressed.length).toBe(SERVICE_NAMES.length);
    for (const variable of addressed) {
      const target = addressedService(variable)!;
      const port = find(all, 'Service', target)!.spec.ports.find((p: { name: string }) => p.name === 'grpc').port;
      expect({ variable, value: env[variable] }).toEqual({ variable, value: `${target}:${port}` });
    }
  });

  it.each(SERVICE_NAMES)('%s: its database URL comes from the Secret, never from the ConfigMap', (name) => {
    const entry = (container(name).env as EnvEntry[]).find((e) => e.name === `DATABASE_URL_${name.toUpperCase()}`)!;
    expect(entry.valueFrom?.secretKeyRef?.name).toBe('tollgate-secrets');
  });

  it('autoscales the gateway and the tasks workers, on Deployments that request CPU', () => {
    const hpas = all.filter((m) => m.doc.kind === 'HorizontalPodAutoscaler').map((m) => m.doc);
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['gateway', 'tasks']);
    for (const h of hpas) {
      expect(h.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      expect(container(h.spec.scaleTargetRef.name).resources.requests.cpu).toBeDefined();
      expect(h.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(h.spec.maxReplicas).toBeGreaterThan(h.spec.minReplicas);
    }
  });

  it.each(APPS)('%s: a PodDisruptionBudget selects its pods and leaves fewer than all replicas required', (name) => {
    const pdbs = all.filter((m) => m.doc.kind === 'PodDisruptionBudget').map((m) => m.doc as Manifest);
    const labels = deployment(name).spec.template.metadata.labels as Record<string, string>;
    const pdb = pdbs.find((p) => Object.entries(p.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v));
    expect(pdb).toBeDefined();
    expect(pdb!.spec.minAvailable).toBeLessThan(deployment(name).spec.replicas);
  });

  it('every ConfigMap key is used by some container', () => {
    const cm = find(all, 'ConfigMap', 'tollgate-config')!;
    const used = new Set(APPS.flatMap((a) => (container(a).env as EnvEntry[]).map((e) => e.valueFrom?.configMapKeyRef?.key).filter(Boolean)));
    expect(Object.keys(cm.data).filter((k) => !used.has(k))).toEqual([]);
  });
});
