import { lookup } from 'node:dns/promises';
import { AppError } from '@tollgate/kit';
import { ipLiteralOf, isMetadataHost, refusedAddress } from './address-policy';

export const MAX_URL_LENGTH = 2048;
const RESOLVE_TIMEOUT_MS = 5_000;

const refused = (msg: string) => AppError.field(['body', 'url'], msg, 'url');

/** The URL's syntax: http or https, a host, no credentials. */
export function checkUrlSyntax(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) throw refused(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('url must use http or https');
  if (!url.hostname) throw refused('url must name a host');
  if (url.username || url.password) throw refused('url must not carry credentials');
  if (url.port === '0') throw refused('url must not name port 0');
  return url;
}

/**
 * A subscription's URL, checked when it is saved: syntax, then every address its host resolves to
 * (the same check runs again on the resolved address at every delivery).
 */
export async function checkSubscriptionUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const url = checkUrlSyntax(raw);
  const literal = ipLiteralOf(url.hostname);
  const addresses = literal ? [literal] : await resolveAll(url.hostname);
  for (const address of addresses) {
    const why = refusedAddress(address, allowPrivate);
    if (why) throw refused(`url refused: ${why}`);
  }
  return url.toString();
}

async function resolveAll(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      lookup(hostname, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS);
      }),
    ]);
    if (found.length === 0) throw new Error('no address');
    return found.map((a) => a.address);
  } catch {
    throw refused(`url refused: host ${hostname.slice(0, 255)} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A per-submission webhook, checked when the task is submitted without a DNS lookup on the
 * execution path: an IP literal is judged as a subscription's address is, a cloud metadata host
 * name is refused; a host name is judged on the addresses it resolves to at each delivery.
 */
export function checkSubmissionWebhook(raw: string, allowPrivate: boolean): void {
  const refusedHere = (msg: string) => AppError.field(['body', 'webhook'], msg.replace(/^url/, 'webhook'), 'url');
  let url: URL;
  try {
    url = checkUrlSyntax(raw);
  } catch (err) {
    throw refusedHere((err as Error).message);
  }
  if (isMetadataHost(url.hostname)) throw refusedHere(`webhook refused: ${url.hostname} is a cloud metadata host (always refused)`);
  const literal = ipLiteralOf(url.hostname);
  const why = literal && refusedAddress(literal, allowPrivate);
  if (why) throw refusedHere(`webhook refused: ${why}`);
}
