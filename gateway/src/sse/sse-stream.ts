import type { Request, Response } from 'express';
import { markExecutionFailed } from '../metrics/executions';

/** An event whose data is `{error: …}`: the stream reports a failure after its 200 was sent. */
const isErrorEvent = (data: unknown): boolean => typeof data === 'object' && data !== null && 'error' in data;

export interface SseStream {
  /** Writes one event (`event:` line when named) with `data` as JSON, or verbatim when a string. */
  send(data: unknown, event?: string): void;
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
export function openSse(req: Request, res: Response, options: { heartbeatMs?: number } = {}): SseStream {
  const controller = new AbortController();
  let closed = false;
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  req.socket.setNoDelay(true);
  const heartbeat = setInterval(() => !closed && res.write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
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
      if (closed) return;
      if (isErrorEvent(data)) markExecutionFailed(res);
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      res.write(`${event ? `event: ${event}\n` : ''}${text.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`);
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
