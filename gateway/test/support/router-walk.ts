import type { Express } from 'express';

export interface ServedRoute {
  method: string;
  /** Express path template with its mount prefixes, e.g. `/api/v1/documents/:id`. */
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

const join = (prefix: string, path: string) => (path === '/' ? prefix : `${prefix}${path}`);

function walk(stack: Layer[], prefix: string, out: ServedRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path !== 'string') throw new Error(`route with a non-string path under ${prefix || '/'}: cannot be documented`);
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') out.push({ method, path: join(prefix, layer.route.path) || '/' });
    } else if (layer.handle?.stack) {
      const mount = layer.rawPath ?? '/';
      if (typeof mount !== 'string') throw new Error(`router mounted on a non-string path under ${prefix || '/'}`);
      walk(layer.handle.stack, join(prefix, mount), out);
    }
  }
}

/** Every method + path the app's router stack answers (route layers only; static files and middleware are not routes). */
export function servedRoutes(app: Express): ServedRoute[] {
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  const out: ServedRoute[] = [];
  walk(router.stack, '', out);
  return out;
}
