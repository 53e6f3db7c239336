import type { Request, Response } from 'express';
import { markExecutionFailed } from '../metrics/executions';
import { requestLog } from '../http/access-log';

/** How long a stream waits for a client that takes nothing before disconnecting it (SSE_STALL_TIMEOUT_MS). */
const DEFAULT_STALL_MS = 60_000;

/** An event whose data is `{error: …}`: the stream reports a failure after its 200 was sent. */
const isErrorEvent = (data: unknown): boolean => typeof data === 'object' && data !== null && 'error' in data;

export interface SseStream {
  /**
   * Writes one event (`event:` line when named) with `data` as JSON, or verbatim when a string;
   * resolves once the client can take more (await it: a client that stops reading then holds the
   * producer back instead of the gateway's memory growing). A client that takes nothing for
   * `stallMs` is disconnected, as one that left.
   */
  send(data: unknown, event?: string): Promise<void>;
  end(): void;
  /** True once the client went away or end() was called. */
  readonly closed: boolean;
  /** Aborted when the client goes away before end(). */
  readonly signal: AbortSignal;
}

/**
 * Turns the response into a `text/event-stream`: headers flushed at once, Nagle off so each event
 * leaves when written, a comment line every `heartbeatMs` to keep proxies from timing out.
 */
export function openSse(req: Request, res: Response, options: { heartbeatMs?: number; stallMs?: number } = {}): SseStream {
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const controller = new AbortController();
  let closed = false;
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  req.socket.setNoDelay(true);
  const heartbeat = setInterval(() => !closed && !res.writableNeedDrain && res.write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  const onClose = () => {
    clearInterval(heartbeat);
    if (!closed) {
      closed = true;
      controller.abort(new Error('client closed the stream'));
    }
  };
  res.on('close', onClose);
  // A client that left before the stream opened has already fired 'close'.
  if (res.destroyed || req.socket.destroyed) onClose();
  return {
    send(data, event) {
      if (closed) return Promise.resolve();
      if (isErrorEvent(data)) markExecutionFailed(res);
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      if (res.write(`${event ? `event: ${event}\n` : ''}${text.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const stalled = setTimeout(() => {
          requestLog(res, 'info')?.info({ stallMs }, 'stream stalled: the client took nothing; disconnected');
          res.destroy();
        }, stallMs);
        const go = () => {
          clearTimeout(stalled);
          res.off('drain', go);
          res.off('close', go);
          resolve();
        };
        res.on('drain', go);
        res.on('close', go);
      });
    },
    end() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      res.end();
    },
    get closed() {
      return closed;
    },
    signal: controller.signal,
  };
}
