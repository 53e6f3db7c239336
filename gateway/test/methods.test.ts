import { routeMethods } from '../src/http/route-methods';
import { startOfflineGateway, type OfflineGateway } from './support/offline-gateway';

// 405 for a served path asked with another method, decided by the path's most specific routes.
describe('methods of a path', () => {
  let g: OfflineGateway;
  beforeAll(async () => {
    g = await startOfflineGateway();
  });
  afterAll(async () => {
    await g.stop();
  });

  it('never refuses a listed method on its own path: every route of the book stays reachable', () => {
    const methodsAt = routeMethods(g.deps.book);
    const unreachable = g.deps.book.routes.filter((r) => !methodsAt(r.path.replace(/:[A-Za-z0-9_]+/g, '1')).includes(r.method.toUpperCase()));
    expect(g.deps.book.routes.length).toBeGreaterThan(50);
    expect(unreachable).toEqual([]);
  });

  it('takes a fixed segment as that route, not as the value of a parameter', () => {
    const methodsAt = routeMethods(g.deps.book);
    expect(methodsAt('/api/v1/documents/bulk')).toEqual(['POST']);
    expect(methodsAt('/api/v1/documents/12').sort()).toEqual(['DELETE', 'GET', 'PUT']);
    expect(methodsAt('/v1/task-query/batch')).toEqual(['POST']);
    expect(methodsAt('/v1/task-query/20261126120000000001')).toEqual(['GET']);
    expect(methodsAt('/no/such/path')).toEqual([]);
  });

  it('answers GET on a POST-only fixed path with 405 and Allow, before a parameter route could take it', async () => {
    for (const path of ['/v1/task-query/batch', '/v1/task-query/list']) {
      const res = await fetch(`${g.base}${path}`);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ detail: `GET is not allowed on ${path}; allowed: POST` });
    }
    const head = await fetch(`${g.base}/v1/task-query/batch`, { method: 'HEAD' });
    expect(head.status).toBe(405);
  });
});
