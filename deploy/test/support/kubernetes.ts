import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { REPO } from './apps';

export const K8S_DIR = join(REPO, 'deploy', 'k8s');
export const SECRET_TEMPLATE = 'secret.example.yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

export interface LoadedManifest {
  file: string;
  doc: Manifest;
}

/** Every object of every YAML file in deploy/k8s except the kustomization itself. */
export function loadManifests(): LoadedManifest[] {
  const files = readdirSync(K8S_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(K8S_DIR, file), 'utf8'))
      .map((d) => d.toJS() as Manifest | null)
      .filter((doc): doc is Manifest => doc !== null)
      .map((doc) => ({ file, doc })),
  );
}

export function loadKustomization(): { namespace?: string; resources: string[]; images?: Array<{ name: string; newName?: string; newTag?: string }> } {
  return parse(readFileSync(join(K8S_DIR, 'kustomization.yaml'), 'utf8'));
}

export const find = (all: LoadedManifest[], kind: string, name: string): Manifest | undefined => all.find((m) => m.doc.kind === kind && m.doc.metadata.name === name)?.doc;

export interface EnvEntry {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string; optional?: boolean }; secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

/** A container's environment with ConfigMap and Secret references resolved (Secret values from the template). */
export function resolveEnv(entries: EnvEntry[], all: LoadedManifest[]): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  for (const e of entries) {
    if (e.value !== undefined) env[e.name] = String(e.value);
    else if (e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const value = find(all, 'ConfigMap', ref.name)?.data?.[ref.key];
      if (value === undefined) problems.push(`${e.name}: ConfigMap ${ref.name} has no key ${ref.key}`);
      else env[e.name] = String(value);
    } else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const secret = find(all, 'Secret', ref.name);
      const value = secret?.stringData?.[ref.key] ?? (secret?.data?.[ref.key] && Buffer.from(secret.data[ref.key], 'base64').toString());
      if (value === undefined) problems.push(`${e.name}: Secret ${ref.name} (template) has no key ${ref.key}`);
      else env[e.name] = String(value);
    } else problems.push(`${e.name}: neither value nor a ConfigMap/Secret reference`);
  }
  return { env, problems };
}
