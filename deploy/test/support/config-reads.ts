/** The part of a zod schema used here (zod itself is not a dependency of the workspace root). */
export interface EnvSchema {
  safeParse(input: unknown): { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

export interface ConfigReads {
  /** Every environment variable name the configuration looked at. */
  read: Set<string>;
  /** Those it cannot start without (an empty environment fails on them). */
  required: Set<string>;
}

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * What a configuration schema reads, found by parsing through a recording environment: zod reads
 * every key of the object shape, and the service's transform reads `DATABASE_URL_<SERVICE>`, so
 * nothing here is a hand-kept list.
 */
export function configReads(schema: EnvSchema, sample: Record<string, string> = {}): ConfigReads {
  const read = new Set<string>();
  const env = new Proxy({ ...sample } as Record<string, string>, {
    get(target, key) {
      if (typeof key === 'string' && ENV_NAME.test(key)) read.add(key);
      return target[key as string];
    },
  });
  schema.safeParse(env);
  const empty = schema.safeParse({});
  const required = new Set<string>();
  if (!empty.success) {
    for (const issue of empty.error.issues) {
      const name = issue.path[0];
      if (typeof name === 'string' && ENV_NAME.test(name)) required.add(name);
    }
  }
  return { read, required };
}
