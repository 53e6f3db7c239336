import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '@tollgate/kit';

export interface ConnectionLimits {
  /** Open client connections of all the listeners together. */
  total: number;
  /** Open connections from one client address (a trusted proxy's address is not limited). */
  perClient: number;
}

/** Descriptors kept free for everything else the process opens: database and gRPC connections, files, upstream calls. */
const RESERVED_DESCRIPTORS = 1_024;
/** Used when the process's descriptor limit cannot be read (not Linux). */
const FALLBACK_TOTAL = 8_192;
/** One warning per this long, however many connections are refused meanwhile. */
const WARN_EVERY_MS = 10_000;

/** The soft limit on open files of this process, from /proc; undefined where it cannot be read. */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connection cap when none is configured: three quarters of the descriptors the process may
 * open, at least 1,024 kept free, so that a flood of client connections can never take the
 * descriptors its database connections and upstream calls need.
 */
export function defaultTotalConnections(fileLimit: number | undefined): number {
  if (fileLimit === undefined) return FALLBACK_TOTAL;
  return Math.max(64, Math.min(Math.floor(fileLimit * 0.75), fileLimit - RESERVED_DESCRIPTORS));
}

/**
 * Caps the client connections of the servers it watches, together and per client address. A connection over
 * a cap is closed as it is accepted, before a byte of it is read or a TLS handshake is made: the
 * client sees the connection closed and may retry; the connections already open are untouched.
 */
export function connectionLimiter(limits: ConnectionLimits, isTrustedProxy: (address: string) => boolean, log: Logger): { watch(server: Server): void } {
  let open = 0;
  const perAddress = new Map<string, number>();
  let refused = 0;
  let lastWarning = 0;
  const refuse = (socket: Socket, reason: 'total' | 'per_client', address: string) => {
    socket.destroy();
    refused++;
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    log.warn({ reason, address, open, limits, refusedSinceLastWarning: refused }, 'connection refused: too many open connections');
    lastWarning = now;
    refused = 0;
  };
  const onConnection = (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    if (open >= limits.total) return refuse(socket, 'total', address);
    const limited = !isTrustedProxy(address);
    const fromAddress = limited ? perAddress.get(address) ?? 0 : 0;
    if (limited && fromAddress >= limits.perClient) return refuse(socket, 'per_client', address);
    open++;
    if (limited) perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      open--;
      if (!limited) return;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  };
  return {
    // Listeners added first run first: a refused connection is closed before the HTTP or TLS layer reads from it.
    watch: (server) => void server.prependListener('connection', onConnection),
  };
}
