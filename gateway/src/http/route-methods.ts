import type { RouteBook } from './route-book';

const toRegExp = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
const paramCount = (path: string) => (path.match(/:[A-Za-z0-9_]+/g) ?? []).length;

/**
 * The methods the book serves at a concrete path (upper case; none for an unknown path), from its
 * most specific routes: `/api/v1/documents/bulk` is the bulk route's path (POST), not a document
 * id of `/api/v1/documents/:id`. Built on first use.
 */
export function routeMethods(book: RouteBook): (path: string) => string[] {
  let table: Array<{ re: RegExp; method: string; params: number }> | undefined;
  return (path) => {
    table ??= book.routes.map((r) => ({ re: toRegExp(r.path), method: r.method.toUpperCase(), params: paramCount(r.path) }));
    const matching = table.filter((r) => r.re.test(path));
    const fewest = Math.min(...matching.map((r) => r.params));
    return [...new Set(matching.filter((r) => r.params === fewest).map((r) => r.method))];
  };
}

/** Whether `method` is one of `allow` (HEAD is served wherever GET is). */
export function allows(allow: string[], method: string): boolean {
  return allow.includes(method) || (method === 'HEAD' && allow.includes('GET'));
}
