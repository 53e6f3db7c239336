/**
 * `{{ path }}` placeholders: a path is a name, optionally followed by `.key` or `.0` segments that
 * walk into objects and arrays (`{{steps.fetch.items.0.title}}`).
 */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/;

/** The paths a template refers to, in order, without repeats; throws a message for a malformed placeholder. */
export function placeholders(template: string): string[] {
  const paths: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (!PATH.test(match[1])) throw new Error(`placeholder {{${match[1]}}} is not a name or a dotted path`);
    if (!paths.includes(match[1])) paths.push(match[1]);
  }
  if (template.replace(PLACEHOLDER, '').includes('{{')) throw new Error('a "{{" is not closed by "}}"');
  return paths;
}

/** The value at a dotted path; undefined when any segment is missing. */
export function lookup(root: unknown, path: string): unknown {
  let value = root;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Strings as they are; everything else as JSON. */
export const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The template with every placeholder replaced, and the paths that had no value (rendered empty). */
export function render(template: string, root: unknown): { text: string; missing: string[] } {
  const missing: string[] = [];
  const text = template.replace(PLACEHOLDER, (_all, path: string) => {
    const value = lookup(root, path);
    if (value === undefined) {
      if (!missing.includes(path)) missing.push(path);
      return '';
    }
    return asText(value);
  });
  return { text, missing };
}
