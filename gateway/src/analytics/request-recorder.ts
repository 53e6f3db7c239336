import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { GrpcClient, Logger } from '@tollgate/kit';
import type { RequestRecord, SiteClient } from '@tollgate/protos/site';
import type { UserPrincipal } from '../auth/user-token';
import type { KeyPrincipal } from '../auth/api-key';
import { UNCOUNTED, endpointGroup } from './endpoint-group';

export interface RecorderOptions {
  flushMs: number;
  /** Measurements kept in memory at most (the oldest are dropped beyond, e.g. while the docs service is down). */
  maxBuffered: number;
  /** Records per RecordRequests call. */
  batchSize: number;
}

const DOCUMENT_READ = /^\/api\/v1\/documents\/(\d+)$/;

/**
 * Request analytics off the request path: each finished response appends one small record to an
 * in-memory buffer (no I/O); a timer sends the buffer in batches (RecordRequests, once every
 * `flushMs`) to the docs service, which keeps raw rows and hourly/daily rollups. A batch that
 * fails is kept (with its id, so a retried batch is counted once) and retried on the next tick.
 */
export class RequestRecorder {
  private buffer: RequestRecord[] = [];
  private pending?: { id: string; records: RequestRecord[] };
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  dropped = 0;

  constructor(
    private readonly site: GrpcClient<SiteClient>,
    private readonly log: Logger,
    private readonly options: RecorderOptions,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  /** The middleware (mounted after the path aliases, so paths are canonical): measures every request but the probes, records it when the response is done. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      if (UNCOUNTED.has(req.path)) return next();
      const started = process.hrtime.bigint();
      const path = req.path;
      const method = req.method;
      res.once('finish', () => {
        const user = res.locals.user as UserPrincipal | undefined;
        const principal = res.locals.principal as KeyPrincipal | undefined;
        const read = method === 'GET' && res.statusCode === 200 ? DOCUMENT_READ.exec(path) : null;
        this.add({
          at: Date.now(),
          accountId: user?.account.id ?? principal?.actor.accountId ?? 0,
          group: endpointGroup(path),
          status: res.statusCode,
          latencyMs: Number(process.hrtime.bigint() - started) / 1e6,
          documentId: read ? Number(read[1]) : 0,
        });
      });
      next();
    };
  }

  add(record: RequestRecord): void {
    this.buffer.push(record);
    if (this.buffer.length > this.options.maxBuffered) {
      const over = this.buffer.length - this.options.maxBuffered;
      this.buffer.splice(0, over);
      this.dropped += over;
    }
  }

  /** Sends what is buffered now; resolves when done (or failed, keeping the batch for the next try). */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async send(): Promise<void> {
    for (;;) {
      if (!this.pending) {
        if (this.buffer.length === 0) return;
        this.pending = { id: randomUUID(), records: this.buffer.splice(0, this.options.batchSize) };
      }
      const batch = this.pending;
      try {
        await this.site.recordRequests({ batchId: batch.id, records: batch.records });
        this.pending = undefined;
      } catch (err) {
        this.log.warn({ err, records: batch.records.length }, 'request analytics batch not sent; retried on the next flush');
        return;
      }
    }
  }
}
