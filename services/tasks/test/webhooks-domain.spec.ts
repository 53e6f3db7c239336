import { createHmac } from 'node:crypto';
import { AppError } from '@tollgate/kit';
import { refusedAddress, ipLiteralOf } from '../src/webhooks/address-policy';
import { MAX_RETRY_WAIT_MS, retryDelayMs } from '../src/webhooks/backoff';
import { checkEvents, documentEventType, subscribesTo, taskEventType } from '../src/webhooks/events';
import { newSecret, signatureHeader, verifySignature } from '../src/webhooks/signature';
import { checkUrlSyntax } from '../src/webhooks/url-policy';

describe('webhook signatures', () => {
  it('makes whsec_ secrets of 40 random characters', () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(newSecret()).not.toBe(a);
  });

  it('signs "<t>.<body>" with HMAC-SHA256 in hex, and a rotated pair gives two v1 values', () => {
    const body = '{"id":"evt_1"}';
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1700000000, body);
    const hmac = (s: string) => createHmac('sha256', s).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${hmac('whsec_new')},v1=${hmac('whsec_old')}`);
    expect(verifySignature(header, body, 'whsec_old', 300, 1700000100)).toBe(true);
    expect(verifySignature(header, body, 'whsec_other', 300, 1700000100)).toBe(false);
    expect(verifySignature(header, `${body} `, 'whsec_new', 300, 1700000100)).toBe(false);
    expect(verifySignature(header, body, 'whsec_new', 300, 1700000301)).toBe(false);
    expect(verifySignature('v1=abc', body, 'whsec_new')).toBe(false);
  });
});

describe('webhook address policy', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '100.64.0.1'])('refuses %s without the development flag and allows it with it', (ip) => {
    expect(refusedAddress(ip, false)).toMatch(/private|loopback/);
    expect(refusedAddress(ip, true)).toBeNull();
  });

  it.each(['169.254.169.254', '169.254.0.1', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe'])('refuses the metadata address %s even with the flag', (ip) => {
    expect(refusedAddress(ip, true)).toMatch(/metadata/);
  });

  it.each([
    '::7f00:1', // IPv4-compatible 127.0.0.1
    '::127.0.0.1',
    '::ffff:0:7f00:1', // SIIT
    '64:ff9b::7f00:1', // NAT64, well-known prefix
    '64:ff9b:1:7f00:0:100::', // NAT64, local-use prefix (RFC 8215)
    '2002:7f00:1::', // 6to4 of 127.0.0.1
    '2002:c0a8:101::1', // 6to4 of 192.168.1.1
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo (client 127.0.0.1)
    '2001:db8::1', // documentation
  ])('refuses %s, an IPv6 form of a private address, unless allowed', (ip) => {
    expect(refusedAddress(ip, false)).toMatch(/private|loopback/);
    expect(refusedAddress(ip, true)).toBeNull();
  });

  it.each(['::a9fe:a9fe', '::169.254.169.254', '::ffff:0:a9fe:a9fe', '64:ff9b::169.254.169.254', '64:ff9b:1:a9fe:a9:fe00::', '2002:a9fe:a9fe::', '2001:0:4136:e378:8000:63bf:5601:5601'])(
    'refuses %s, an IPv6 form of the metadata address, even with the flag',
    (ip) => {
      expect(refusedAddress(ip, true)).toMatch(/metadata/);
    },
  );

  it('allows public addresses', () => {
    expect(refusedAddress('93.184.216.34', false)).toBeNull();
    expect(refusedAddress('2606:2800:220:1:248:1893:25c8:1946', false)).toBeNull();
    expect(refusedAddress('2002:5db8:d822::1', false)).toBeNull(); // 6to4 of a public address
  });

  it('reads IP literals out of URL hosts, brackets included', () => {
    expect(ipLiteralOf('[::1]')).toBe('::1');
    expect(ipLiteralOf('127.0.0.1')).toBe('127.0.0.1');
    expect(ipLiteralOf('example.com')).toBeNull();
  });

  it('accepts only http and https URLs without credentials', () => {
    expect(checkUrlSyntax('https://example.com/hook').hostname).toBe('example.com');
    for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'not a url', 'https://user:pw@example.com/', `https://example.com/${'a'.repeat(2100)}`]) {
      expect(() => checkUrlSyntax(bad)).toThrow(AppError);
    }
  });
});

describe('webhook events', () => {
  it('accepts known names and "*", refuses unknown ones by name', () => {
    expect(checkEvents(['task.completed', 'task.completed', 'document.created'])).toEqual(['task.completed', 'document.created']);
    expect(checkEvents(['*'])).toEqual(['*']);
    expect(() => checkEvents([])).toThrow(/at least one/);
    expect(() => checkEvents(['task.exploded'])).toThrow(/unknown event "task.exploded"/);
  });

  it('matches by name or "*"', () => {
    expect(subscribesTo(['*'], 'document.deleted')).toBe(true);
    expect(subscribesTo(['task.failed'], 'task.completed')).toBe(false);
  });

  it('maps final task states and document changes to event names', () => {
    expect(taskEventType('已完成')).toBe('task.completed');
    expect(taskEventType('已报错')).toBe('task.failed');
    expect(taskEventType('已取消')).toBe('task.cancelled');
    expect(taskEventType('执行中')).toBeUndefined();
    const base = { id: 1, version: 2, at: '' };
    expect(documentEventType({ ...base, change: 'updated', action: 'restored' })).toBe('document.restored');
    expect(documentEventType({ ...base, change: 'updated' })).toBe('document.updated');
    expect(documentEventType({ ...base, change: 'deleted' })).toBe('document.deleted');
  });
});

describe('webhook retry backoff', () => {
  it('doubles from the base with ±20 % jitter and a cap', () => {
    expect(retryDelayMs(1000, 1, () => 0.5)).toBe(1000);
    expect(retryDelayMs(1000, 3, () => 0.5)).toBe(4000);
    expect(retryDelayMs(1000, 3, () => 0)).toBe(3200);
    expect(retryDelayMs(1000, 3, () => 1)).toBe(4800);
    expect(retryDelayMs(60_000, 30, () => 0.5)).toBe(MAX_RETRY_WAIT_MS);
  });

  it('spans about a day with the defaults (60 s base, 12 attempts)', () => {
    let total = 0;
    for (let attempt = 1; attempt < 12; attempt++) total += retryDelayMs(60_000, attempt, () => 0.5);
    expect(total / 3_600_000).toBeGreaterThan(20);
    expect(total / 3_600_000).toBeLessThan(30);
  });
});
