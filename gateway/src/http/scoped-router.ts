import type { Request, RequestHandler, Router } from 'express';

const LOWER_PATH = Symbol('lower-case path');

/** The request's path lower-cased, computed once per URL however many guards ask (a rewrite of the URL is seen). */
function lowerPath(req: Request): string {
  const r = req as Request & { [LOWER_PATH]?: { url: string; path: string } };
  const known = r[LOWER_PATH];
  if (known?.url === req.url) return known.path;
  const path = req.path.toLowerCase();
  r[LOWER_PATH] = { url: req.url, path };
  return path;
}

interface LayerLike {
  rawPath?: unknown;
  slash?: boolean;
  handle?: { length: number; stack?: LayerLike[] };
}

/** The literal start of a route path, up to its first parameter or pattern, lower-cased; undefined when it could match any path. */
function literalPrefix(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  const special = path.search(/[:*?(){}+!\\]/);
  const prefix = (special < 0 ? path : path.slice(0, special)).toLowerCase();
  return prefix.length > 1 ? prefix : undefined;
}

/**
 * The literal prefixes of every layer of a router's stack (`'/'` standing for the root path
 * alone); undefined when any layer could match any path. Error handlers are left out: a router
 * only ever passes them its own errors. A router mounted inside without a path counts by its own
 * layers.
 */
export function routerPrefixes(stack: LayerLike[]): string[] | undefined {
  const prefixes = new Set<string>();
  for (const layer of stack) {
    if (layer.handle?.length === 4) continue;
    if (layer.slash) {
      const inner = layer.handle?.stack && routerPrefixes(layer.handle.stack);
      if (!inner) return undefined;
      for (const p of inner) prefixes.add(p);
      continue;
    }
    for (const path of Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath]) {
      const prefix = path === '/' ? '/' : literalPrefix(path);
      if (prefix === undefined) return undefined;
      prefixes.add(prefix);
    }
  }
  return [...prefixes];
}

/**
 * A router mounted without a path is entered by every request, which then tries each of its
 * layers in turn (a hundred path matches per request across the gateway's routers). When every
 * layer of the router starts with a literal path, this guard lets in only the requests whose path
 * starts with one of those (without case, as the router matches) and passes the rest straight on:
 * it never turns away a request the router would serve. A router with a layer that could match any
 * path (a path-less `use`, a parameter first) lets every request in.
 */
export function scopedRouter(router: Router): RequestHandler {
  const stack = (router as unknown as { stack: LayerLike[] }).stack;
  let known = -1;
  let prefixes: string[] | undefined;
  const guard: RequestHandler = (req, res, next) => {
    // A route added after mounting changes the stack: the prefixes are read again.
    if (stack.length !== known) {
      known = stack.length;
      prefixes = routerPrefixes(stack);
    }
    if (!prefixes) return router(req, res, next);
    const path = lowerPath(req);
    for (const prefix of prefixes) if (prefix === '/' ? path === '/' : path.startsWith(prefix)) return router(req, res, next);
    next();
  };
  // Whatever walks the app's routes (the OpenAPI check, the route book's tests) still finds them.
  return Object.assign(guard, { stack });
}
