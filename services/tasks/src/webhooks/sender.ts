import { storableText } from '@tollgate/kit';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { ipLiteralOf, refusedAddress } from './address-policy';

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  /** 0 when no HTTP answer came. */
  statusCode: number;
  latencyMs: number;
  /** The first RESPONSE_BODY_CHARS characters of the answer. */
  responseBody: string;
  /** Why no answer came (refused address, timeout, connection error); empty otherwise. */
  error: string;
  ok: boolean;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export const RESPONSE_BODY_CHARS = 1024;
const USER_AGENT = 'Tollgate-Webhooks/1';

class RefusedAddress extends Error {}

/** A DNS lookup that refuses, after resolution, any address the policy forbids (so a name cannot smuggle one in). */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = refusedAddress(a.address, allowPrivate);
        if (why) return callback(new RefusedAddress(why), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * POSTs one signed body. A 2xx within `timeoutMs` (headers and body) is success; redirects are not
 * followed (a 3xx is a failure); the address is checked after DNS resolution, at connect time.
 */
export function sendWebhook(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<AttemptOutcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const fail = (error: string, statusCode = 0, responseBody = ''): AttemptOutcome => ({ statusCode, latencyMs: elapsed(), responseBody, error: storableText(error), ok: false });

  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(fail('invalid URL'));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.resolve(fail('only http and https URLs are delivered'));
  const literal = ipLiteralOf(target.hostname);
  if (literal) {
    const why = refusedAddress(literal, opts.allowPrivate);
    if (why) return Promise.resolve(fail(`refused: ${why}`));
  }

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const done = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(opts.allowPrivate),
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res: IncomingMessage) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < RESPONSE_BODY_CHARS) text += chunk;
          else res.destroy();
        });
        const finish = () => {
          const status = res.statusCode ?? 0;
          // A receiver's answer is anything it likes; what is kept of it is text PostgreSQL can hold.
          const responseBody = storableText(text.slice(0, RESPONSE_BODY_CHARS));
          if (status >= 200 && status < 300) done({ statusCode: status, latencyMs: elapsed(), responseBody, error: '', ok: true });
          else done(fail(status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`, status, responseBody));
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done(fail(`no complete answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (err) => done(fail(err instanceof RefusedAddress ? `refused: ${err.message}` : `connection failed: ${err.message}`)));
    req.end(body);
  });
}
