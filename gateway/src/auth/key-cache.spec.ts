import type { AuthenticateKeyResponse } from '@tollgate/protos/keys';
import { newKeyCache } from './key-cache';
import { fromMicros, toMicros } from './decimal';

const answer = (keyId: number, accountId: number, validUntil = ''): AuthenticateKeyResponse =>
  ({ key: { id: keyId, accountId }, account: { id: accountId, validUntil }, expired: false }) as unknown as AuthenticateKeyResponse;

describe('KeyCache', () => {
  it('serves an entry per key hash and kind until its TTL', () => {
    const cache = newKeyCache({ ttlMs: 1_000 });
    cache.set('h1:agent', answer(1, 10), cache.version, 0);
    expect(cache.get('h1:agent', 999)?.key?.id).toBe(1);
    expect(cache.get('h1:workflow', 10)).toBeUndefined();
    expect(cache.get('h1:agent', 1_000)).toBeUndefined();
  });

  it('never keeps an entry past the account validity', () => {
    const cache = newKeyCache({ ttlMs: 60_000 });
    const end = Date.parse('2030-01-01T00:00:00Z');
    cache.set('h:agent', answer(1, 10, '2030-01-01T00:00:00.000Z'), cache.version, end - 100);
    expect(cache.get('h:agent', end - 1)).toBeDefined();
    expect(cache.get('h:agent', end)).toBeUndefined();
  });

  it('drops by key id and by account id', () => {
    const cache = newKeyCache();
    cache.set('a:agent', answer(1, 10), cache.version);
    cache.set('b:agent', answer(2, 10), cache.version);
    cache.set('c:agent', answer(3, 11), cache.version);
    cache.invalidate('key', 1);
    expect([cache.get('a:agent'), cache.get('b:agent')].map((e) => e?.key?.id)).toEqual([undefined, 2]);
    cache.invalidate('account', 10);
    expect(cache.get('b:agent')).toBeUndefined();
    expect(cache.get('c:agent')?.key?.id).toBe(3);
  });

  it('does not store an answer fetched while a change happened', () => {
    const cache = newKeyCache();
    const before = cache.version;
    cache.invalidate('key', 99);
    cache.set('h:agent', answer(1, 10), before);
    expect(cache.get('h:agent')).toBeUndefined();
  });

  it('bounds its size', () => {
    const cache = newKeyCache({ maxEntries: 3 });
    for (let i = 0; i < 5; i++) cache.set(`h${i}:agent`, answer(i, 1), cache.version);
    expect(cache.size).toBe(3);
    expect(cache.get('h4:agent')).toBeDefined();
  });
});

describe('decimal helpers', () => {
  it('round-trips and subtracts exactly', () => {
    expect(fromMicros(toMicros('10') - toMicros('2.75'))).toBe('7.25');
    expect(fromMicros(toMicros('0') - toMicros('0.5'))).toBe('-0.5');
    expect(fromMicros(toMicros(''))).toBe('0');
  });
});
