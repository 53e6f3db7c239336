import type { RouteBook } from './route-book';

const toRegExp = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);

/** The methods the book serves at a concrete path (upper case; none for an unknown path). Built on first use. */
export function routeMethods(book: RouteBook): (path: string) => string[] {
  let table: Array<{ re: RegExp; method: string }> | undefined;
  return (path) => {
    table ??= book.routes.map((r) => ({ re: toRegExp(r.path), method: r.method.toUpperCase() }));
    return [...new Set(table.filter((r) => r.re.test(path)).map((r) => r.method))];
  };
}
