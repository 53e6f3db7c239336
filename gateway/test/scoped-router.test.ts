import express, { Router } from 'express';
import type { AddressInfo } from 'node:net';
import { routerPrefixes, scopedRouter } from '../src/http/scoped-router';

/** A real HTTP server with `routers` mounted through scopedRouter, then a catch-all 404. */
async function serve(routers: Router[]) {
  const app = express();
  for (const r of routers) app.use(scopedRouter(r));
  app.use((req, res) => res.status(404).send(`none ${req.method} ${req.path}`));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get: async (path: string) => {
      const res = await fetch(`${base}${path}`);
      return `${res.status} ${await res.text()}`;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('scopedRouter', () => {
  const tasks = Router();
  tasks.get('/v1/agent/:id/sync', (req, res) => res.send(`agent ${req.params.id}`));
  tasks.get('/v1/tasks', (_req, res) => res.send('tasks'));
  const nested = Router();
  nested.get('/v1/models', (_req, res) => res.send('models'));
  const outer = Router();
  outer.use(nested);
  outer.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => res.status(500).send(err.message));
  const home = Router();
  home.get('/', (_req, res) => res.send('home'));
  const everywhere = Router();
  everywhere.use((req, res, next) => (req.path.endsWith('.secret') ? res.send('caught everywhere') : next()));

  it('knows the literal start of every layer, and gives up on a layer that could match any path', () => {
    expect(routerPrefixes((tasks as unknown as { stack: [] }).stack)).toEqual(['/v1/agent/', '/v1/tasks']);
    expect(routerPrefixes((outer as unknown as { stack: [] }).stack)).toEqual(['/v1/models']);
    expect(routerPrefixes((home as unknown as { stack: [] }).stack)).toEqual(['/']);
    expect(routerPrefixes((everywhere as unknown as { stack: [] }).stack)).toBeUndefined();
  });

  it('serves every path its router serves, in any case and with a trailing slash, and passes the others on', async () => {
    const s = await serve([tasks, outer, home, everywhere]);
    try {
      expect(await s.get('/v1/agent/a1/sync')).toBe('200 agent a1');
      expect(await s.get('/V1/AGENT/a1/SYNC')).toBe('200 agent a1');
      expect(await s.get('/v1/tasks/')).toBe('200 tasks');
      expect(await s.get('/v1/models')).toBe('200 models');
      expect(await s.get('/')).toBe('200 home');
      expect(await s.get('/v1/agent')).toBe('404 none GET /v1/agent');
      expect(await s.get('/v2/tasks')).toBe('404 none GET /v2/tasks');
      // A router with a path-less middleware still sees every request.
      expect(await s.get('/anything/x.secret')).toBe('200 caught everywhere');
      // A route added after mounting is served too.
      tasks.get('/v2/late', (_req, res) => res.send('late'));
      expect(await s.get('/v2/late')).toBe('200 late');
    } finally {
      await s.close();
    }
  });

  it('sees a URL rewritten between two guards (the path is read once per URL, not once per request)', async () => {
    const rewrite = Router();
    rewrite.use((req, _res, next) => {
      if (req.url === '/old/tasks') req.url = '/v1/tasks';
      next();
    });
    const s = await serve([home, rewrite, tasks]);
    try {
      expect(await s.get('/old/tasks')).toBe('200 tasks');
      expect(await s.get('/OLD/other')).toBe('404 none GET /OLD/other');
    } finally {
      await s.close();
    }
  });
});
