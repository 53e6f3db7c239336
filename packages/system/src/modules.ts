import type { ServiceModule, ServiceName } from '@tollgate/kit';

/** Start order: a service may call the ones before it. */
export const SERVICE_ORDER: readonly ServiceName[] = ['keys', 'billing', 'docs', 'tasks', 'search'];

/**
 * The services' threads in the embedded default, besides the main thread (gateway and bus): the
 * money path (keys, billing) in one, the task and content services in the other, so that a request
 * keeps every core busy. Each thread loads only its own services' code.
 */
export const THREAD_GROUPS: readonly (readonly ServiceName[])[] = [
  ['keys', 'billing'],
  ['docs', 'tasks', 'search'],
];

/** A service's module, loaded on first use (a thread loads only the ones it runs). */
export function moduleNamed(name: ServiceName): ServiceModule {
  switch (name) {
    case 'keys':
      return require('@tollgate/keys').keysService;
    case 'billing':
      return require('@tollgate/billing').billingService;
    case 'docs':
      return require('@tollgate/docs').docsService;
    case 'tasks':
      return require('@tollgate/tasks').tasksService;
    case 'search':
      return require('@tollgate/search').searchService;
  }
}
