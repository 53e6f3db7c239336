import { servedRoutes } from './support/router-walk';
import { startOfflineGateway, type OfflineGateway } from './support/offline-gateway';

/** Served by the gateway but deliberately not API operations: probes and the reference page itself. */
// Pages for people, not API: the Swagger page, and the web console (and the browser redirect of /).
const INFRASTRUCTURE = ['get /healthz', 'get /readyz', 'get /docs', 'get /', 'get /console', 'get /console/{*rest}'];
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

interface Doc {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { security?: Array<Record<string, string[]>>; responses?: Record<string, unknown>; tags?: string[] }>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string }>; schemas?: Record<string, unknown> };
}

const toExpress = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

describe('OpenAPI document', () => {
  let g: OfflineGateway;
  let doc: Doc;
  beforeAll(async () => {
    g = await startOfflineGateway();
    const res = await fetch(`${g.base}/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });
  afterAll(async () => {
    await g.stop();
  });

  const documented = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m} ${toExpress(path)}`));

  it('is OpenAPI 3.1 with info and a server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Tollgate API');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(doc.servers.length).toBeGreaterThan(0);
  });

  it('documents every route the gateway serves, and nothing it does not serve', () => {
    const served = servedRoutes(g.app).map((r) => `${r.method} ${r.path}`);
    expect(served.length).toBeGreaterThan(INFRASTRUCTURE.length);
    const api = served.filter((r) => !INFRASTRUCTURE.includes(r));
    expect(api.filter((r) => !documented().includes(r)).sort()).toEqual([]);
    expect(documented().filter((r) => !served.includes(r)).sort()).toEqual([]);
  });

  it('documents analytics, configuration (with If-Match answers), activity and rendering', () => {
    const ops = documented();
    for (const report of ['usage', 'performance', 'users', 'content', 'search']) expect(ops).toContain(`get /api/v1/analytics/${report}`);
    for (const section of ['site', 'theme', 'search', 'plugins', 'integrations']) {
      expect(ops).toEqual(expect.arrayContaining([`get /api/v1/config/${section}`, `put /api/v1/config/${section}`, `get /api/v1/config/${section}/history`]));
      expect(Object.keys(doc.paths[`/api/v1/config/${section}`].put.responses ?? {})).toEqual(expect.arrayContaining(['200', '412', '422', '428']));
    }
    expect(ops).toEqual(expect.arrayContaining(['get /api/v1/activity', 'get /api/v1/users/:id/activity', 'get /api/v1/documents/:id/render']));
  });

  it('lists the RouteBook’s routes: one registry behind validation and the document', () => {
    const booked = g.deps.book.routes.map((r) => `${r.method} ${r.path}`);
    expect([...booked].sort()).toEqual([...documented()].sort());
    expect(documented()).toEqual(expect.arrayContaining(['get /openapi.json', 'get /metrics']));
  });

  it('declares the three ways to authenticate, and every operation names only those', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.userToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.formToken).toMatchObject({ type: 'apiKey', name: 'token' });
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) expect({ path, method, name, known: name in schemes }).toEqual({ path, method, name, known: true });
        expect({ path, method, responses: Object.keys(op.responses ?? {}).length > 0 }).toEqual({ path, method, responses: true });
      }
    }
  });

  it('names every operation, documents error bodies, the docs API rate-limit headers and 429, and the request headers routes read', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ path, method, op: op as any })));
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of ops) {
      const docsApi = path.startsWith('/api/');
      for (const [status, r] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) >= 400) expect({ path, method, status, content: r.content !== undefined }).toEqual({ path, method, status, content: true });
        if (docsApi) expect({ path, method, status, headers: Object.keys(r.headers ?? {}).sort() }).toEqual({ path, method, status, headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] });
      }
      if (docsApi) expect({ path, method, has429: '429' in op.responses }).toEqual({ path, method, has429: true });
    }
    const header = (path: string, method: string, name: string) => (doc.paths[path][method] as any).parameters?.find((p: any) => p.in === 'header' && p.name === name);
    const configPut = Object.keys(doc.paths).find((p) => p.startsWith('/api/v1/config/') && (doc.paths[p] as any).put)!;
    expect(header(configPut, 'put', 'If-Match')).toMatchObject({ required: true });
    expect(header('/v1/agent/{app_id}/async', 'post', 'Idempotency-Key')).toMatchObject({ in: 'header' });
    expect(header('/api/v1/documents', 'post', 'X-CSRF-Token')).toMatchObject({ in: 'header' });
    expect(header('/api/v1/documents', 'get', 'X-CSRF-Token')).toBeUndefined();
  });

  it('resolves every $ref inside the document', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]);
    for (const ref of refs) {
      const target = ref.split('/').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });

  it('is the same document on every request', async () => {
    const again = await (await fetch(`${g.base}/openapi.json`)).json();
    expect(again).toEqual(doc);
  });
});

describe('/docs reference page', () => {
  let g: OfflineGateway;
  beforeAll(async () => {
    g = await startOfflineGateway();
  });
  afterAll(async () => {
    await g.stop();
  });

  it('is an HTML page that loads Swagger UI from this gateway, not from a CDN, pointed at openapi.json', async () => {
    const res = await fetch(`${g.base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(html).toContain("url: 'openapi.json'");
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(expect.arrayContaining(['docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']));
    for (const asset of assets) {
      const a = await fetch(new URL(asset, `${g.base}/docs`));
      expect({ asset, status: a.status }).toEqual({ asset, status: 200 });
      expect((await a.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('answers a missing asset with the JSON 404, not the page', async () => {
    const res = await fetch(`${g.base}/docs/no-such-file.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'no route for GET /docs/no-such-file.js' });
  });

  it('sends /docs/ to /docs, so the page’s relative asset links resolve', async () => {
    const res = await fetch(`${g.base}/docs/`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(new URL(res.headers.get('location')!, `${g.base}/docs/`).pathname).toBe('/docs');
  });

  it.each(['index.html', 'swagger-initializer.js', 'package.json', '../package.json'])('does not serve the package’s other files (%s)', async (file) => {
    const res = await fetch(`${g.base}/docs/${file}`);
    expect(res.status).toBe(404);
  });
});
