import type { ServiceName } from '@tollgate/kit';

/** Messages between the main thread and a services thread. */
export type ThreadRequest = { op: 'start'; name: ServiceName; env: NodeJS.ProcessEnv } | { op: 'stop'; name: ServiceName } | { op: 'close' };

export type ThreadReply =
  | { op: 'loaded' }
  | { op: 'started'; name: ServiceName; address: string; metricsUrl?: string }
  | { op: 'stopped'; name: ServiceName }
  | { op: 'closed' }
  | { op: 'failed'; error: { message: string; stack?: string } };
