/**
 * Tools that run inside Tollgate (`url: "builtin:<name>"`), so an app (the demo agent) can show a real
 * tool round trip without a network.
 */
export const BUILTIN_TOOLS: Record<string, { description: string; run(args: Record<string, unknown>): unknown }> = {
  time: { description: 'The current date and time (UTC, ISO 8601).', run: () => ({ utc: new Date().toISOString() }) },
  echo: { description: 'Returns its arguments unchanged.', run: (args) => args },
};
