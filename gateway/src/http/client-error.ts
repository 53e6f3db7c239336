import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { newRequestId, REQUEST_ID_HEADER, type Logger } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import { refusedRequestRateHeaders } from '../limits/docs-rate-limit';

interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

/** Status and public message of an error raised by Node's HTTP parser, before any route ran. */
function refusal(err: ParserError): { status: number; reason: string; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', message: 'the request line and headers are too large (at most 16 KB in all)' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', message: 'the request was not received in time' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, reason: 'Bad Request', message: 'malformed request: Content-Length together with Transfer-Encoding' };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 400, reason: 'Bad Request', message: 'malformed request: bad chunked transfer encoding' };
    default:
      return { status: 400, reason: 'Bad Request', message: 'malformed HTTP request' };
  }
}

/** Whether the refused request was addressed to the docs API (`/api/...`), read from the bytes received. */
function isDocsRequest(raw: Buffer | undefined): boolean {
  if (!raw) return false;
  const line = raw.subarray(0, 64).toString('latin1');
  return /^[A-Z]+ +\/api(\/|\?|\s|$)/.test(line);
}

function rawResponse(status: number, reason: string, headers: Record<string, string>, body: string): string {
  const all = { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  return `HTTP/1.1 ${status} ${reason}\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Answers what Node's HTTP parser refuses (bad chunked framing, Content-Length with
 * Transfer-Encoding → 400; headers or path over the limit → 431) in the public error shapes:
 * `{detail}` on the task API, the envelope with the rate-limit headers on `/api/*`. The connection
 * is closed afterwards, as the stream can no longer be trusted.
 */
export function answerParserErrors(server: Server, deps: GatewayDeps, log: Logger): void {
  server.on('clientError', (err: ParserError, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    // When the headers were already parsed (a malformed chunked body), the request's own response
    // object says where it was going; a response already under way only ends the connection.
    const res = (socket as { _httpMessage?: ServerResponse & { locals?: Record<string, unknown>; req?: IncomingMessage } })._httpMessage;
    if (res?.headersSent) return void socket.destroy();
    const { status, reason, message } = refusal(err);
    const requestId = (res?.getHeader(REQUEST_ID_HEADER) as string | undefined) ?? newRequestId();
    log.debug({ requestId, code: err.code, status }, 'malformed HTTP request refused');
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
    const docs = res ? res.locals?.surface === 'docs' || (res.req?.url ?? '').startsWith('/api') : isDocsRequest(err.rawPacket);
    if (!docs) return void socket.end(rawResponse(status, reason, headers, JSON.stringify({ detail: message })));
    const counted = res?.getHeader('X-RateLimit-Limit') !== undefined;
    const rates = counted
      ? Promise.resolve(Object.fromEntries(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((h) => [h, String(res!.getHeader(h))])))
      : refusedRequestRateHeaders(deps, socket.remoteAddress ?? 'unknown');
    void rates.then((rate) => {
      if (!socket.writable) return void socket.destroy();
      const body = JSON.stringify({ code: status, message, data: {}, timestamp: new Date().toISOString(), request_id: requestId });
      socket.end(rawResponse(status, reason, { ...headers, ...rate }, body));
    });
  });
}

/**
 * An `Expect` other than `100-continue` (which Node answers itself) cannot be met: 417 in the
 * surface's shape, instead of Node's bare 417, and the connection closed (a body may follow).
 */
export function answerUnmetExpectations(server: Server, deps: GatewayDeps, log: Logger): void {
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = newRequestId();
    const message = `the expectation "${String(req.headers.expect).slice(0, 100)}" cannot be met; only 100-continue is supported`;
    log.debug({ requestId, expect: req.headers.expect }, 'unsupported Expect refused');
    const answer = (headers: Record<string, string>, body: string) => {
      res.shouldKeepAlive = false;
      res.writeHead(417, { ...headers, [REQUEST_ID_HEADER]: requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
    };
    if (!(req.url ?? '').startsWith('/api')) return answer({}, JSON.stringify({ detail: message }));
    void refusedRequestRateHeaders(deps, req.socket.remoteAddress ?? 'unknown').then((rate) =>
      answer(rate, JSON.stringify({ code: 417, message, data: {}, timestamp: new Date().toISOString(), request_id: requestId })),
    );
  });
}
