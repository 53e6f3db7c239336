/** The endpoint group of a request path, as the analytics count it (a fixed, small set). */
const GROUPS: Array<[RegExp, string]> = [
  [/^\/api\/v1\/documents(?:\/|$)/, 'documents'],
  [/^\/api\/v1\/search(?:\/|$)/, 'search'],
  [/^\/api\/v1\/users(?:\/|$)/, 'users'],
  [/^\/api\/v1\/analytics(?:\/|$)/, 'analytics'],
  [/^\/api\/v1\/config(?:\/|$)/, 'config'],
  [/^\/api\/v1\/activity(?:\/|$)/, 'activity'],
  [/^\/api\//, 'api_other'],
  [/^\/apikeys\//, 'keys'],
  [/^\/v1\/(?:task-query|task-status)(?:\/|$)/, 'tasks'],
  [/^\/v1\/(?:agent|chatbot|workflow)\//, 'executions'],
  [/^\/v1\/apps(?:\/|$)/, 'apps'],
  [/^\/v1\/billing(?:\/|$)/, 'billing'],
  [/^\/v1\/(?:chat|models)(?:\/|$)/, 'passthrough'],
];

/** Paths never counted: probes and the metrics scrape. */
export const UNCOUNTED = new Set(['/healthz', '/readyz', '/metrics']);

export function endpointGroup(path: string): string {
  for (const [re, group] of GROUPS) if (re.test(path)) return group;
  return 'other';
}
