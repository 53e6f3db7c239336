import type { ServiceModule, ServiceName } from '@tollgate/kit';

/** Start order: a service may call the ones before it. */
export const SERVICE_ORDER: readonly ServiceName[] = ['billing', 'keys', 'docs', 'tasks', 'search'];

/**
 * The services' threads in the embedded default, besides the main thread: the content services
 * (docs and search, whose indexing and scoring are the CPU-heavy work) in one, so that a search
 * never holds up the main thread's event loop. The execution path (gateway, keys, billing, tasks)
 * stays on the main thread: each hop between threads costs more CPU than it frees on a small machine
 * (docs/benchmarks.md, "The execution path on one thread"). Each thread loads only its own services' code.
 */
export const THREAD_GROUPS: readonly (readonly ServiceName[])[] = [['docs', 'search']];

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
