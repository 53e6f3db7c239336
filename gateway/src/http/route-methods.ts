import type { RouteBook } from './route-book';

const toRegExp = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
const paramCount = (path: string) => (path.match(/:[A-Za-z0-9_]+/g) ?? []).length;

/**
 * The methods the book serves at a concrete path (upper case; none for an unknown path), from its
 * most specific routes: `/api/v1/documents/bulk` is the bulk route's path (POST), not a document
 * id of `/api/v1/documents/:id`; with those routes' tags. Built on first use.
 */
export function routesAt(book: RouteBook): (path: string) => { allow: string[]; tags: Set<string> } {
  let table: Array<{ re: RegExp; method: string; params: number; tags: readonly string[] }> | undefined;
  return (path) => {
    table ??= book.routes.map((r) => ({ re: toRegExp(r.path), method: r.method.toUpperCase(), params: paramCount(r.path), tags: r.tags }));
    const matching = table.filter((r) => r.re.test(path));
    const fewest = Math.min(...matching.map((r) => r.params));
    const specific = matching.filter((r) => r.params === fewest);
    return { allow: [...new Set(specific.map((r) => r.method))], tags: new Set(specific.flatMap((r) => r.tags)) };
  };
}

/** The methods the book serves at a concrete path (see routesAt). */
export function routeMethods(book: RouteBook): (path: string) => string[] {
  const at = routesAt(book);
  return (path) => at(path).allow;
}

/** Whether `method` is one of `allow` (HEAD is served wherever GET is). */
export function allows(allow: string[], method: string): boolean {
  return allow.includes(method) || (method === 'HEAD' && allow.includes('GET'));
}
