import { isAppError } from '@tollgate/kit';
import { parseChannel } from '../src/domain/channel';
import { parseTime14, toTime14 } from '../src/domain/time14';
import { MAX_QUOTA, QUOTA_PATTERN, normalizeDecimal, quotaOrThrow, toMicros } from '../src/domain/quota';
import { API_KEY_PATTERN, newApiKey, newUserToken, sameHash, sha256Hex } from '../src/domain/secrets';

const fieldOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return err.details.issues?.[0]?.loc.join('.');
    throw err;
  }
  return undefined;
};

const issueOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return err.details.issues?.[0];
    throw err;
  }
  return undefined;
};

describe('channels', () => {
  it('defaults to platform with the four kinds', () => {
    expect(parseChannel('')).toEqual({ channel: 'platform', allowedKinds: ['agent', 'workflow', 'aiapp', 'chatbot'] });
    expect(parseChannel(' platform ')).toEqual(parseChannel(''));
  });
  it('gives a provider channel only the passthrough', () => {
    expect(parseChannel('provider:deep-seek.v2')).toEqual({ channel: 'provider:deep-seek.v2', allowedKinds: ['passthrough'] });
  });
  it('sorts and dedupes custom kinds', () => {
    expect(parseChannel('custom: chatbot ,agent,chatbot')).toEqual({ channel: 'custom:agent,chatbot', allowedKinds: ['agent', 'chatbot'] });
  });
  it.each(['custom', 'custom:', 'custom:passthrough', 'custom:agent,nope', 'provider:', 'provider:bad name', 'Platform', 'openai'])('rejects %p on body.channel', (raw) => {
    expect(fieldOf(() => parseChannel(raw))).toBe('body.channel');
  });
});

describe('14-digit times', () => {
  it('round-trips UTC', () => {
    const d = new Date(Date.UTC(2027, 1, 28, 23, 59, 58));
    expect(toTime14(d)).toBe('20270228235958');
    expect(parseTime14('20270228235958')?.getTime()).toBe(d.getTime());
  });
  it.each(['2027022823595', '202702282359588', '20270229000000', '20271301000000', '20270101240000', '20270101006000', '19691231235959', 'abcdefghijklmn'])('rejects %p', (s) => {
    expect(parseTime14(s)).toBeNull();
  });
  it('accepts a leap day', () => {
    expect(parseTime14('20280229120000')).not.toBeNull();
  });
});

describe('quota amounts', () => {
  it.each(['0', '1', '100.5', '0.000001', '99999999999999.999999'])('accepts %p', (s) => expect(QUOTA_PATTERN.test(s)).toBe(true));
  it.each(['-1', '-0', '1.0000001', '1e3', '', ' 1', '1.', '.5', '999999999999999'])('rejects %p', (s) => {
    expect(fieldOf(() => quotaOrThrow(s))).toBe('body.quota');
  });
  it(`caps a quota at ${MAX_QUOTA}, so its JSON number stays exact`, () => {
    expect(quotaOrThrow('999999999.999999')).toBe('999999999.999999');
    const tooBig = issueOf(() => quotaOrThrow('1000000000'));
    expect(tooBig).toMatchObject({ loc: ['body', 'quota'], type: 'less_than_equal' });
  });
  it('compares exactly in millionths', () => {
    expect(toMicros('0.1') + toMicros('0.2')).toBe(toMicros('0.3'));
    expect(toMicros('2.5') < toMicros('2.500001')).toBe(true);
  });
  it('normalizes stored decimals', () => {
    expect(normalizeDecimal('10.500000')).toBe('10.5');
    expect(normalizeDecimal('3.000000')).toBe('3');
  });
});

describe('secrets', () => {
  it('issues keys in the spec format and user tokens that differ every time', () => {
    const keys = new Set(Array.from({ length: 200 }, newApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(API_KEY_PATTERN.test(k)).toBe(true);
    expect(newUserToken()).toMatch(/^tg-[A-Za-z0-9]{40}$/);
  });
  it('compares hashes in constant time and only equal ones match', () => {
    const h = sha256Hex('ak-x');
    expect(sameHash(h, sha256Hex('ak-x'))).toBe(true);
    expect(sameHash(h, sha256Hex('ak-y'))).toBe(false);
    expect(sameHash(h, 'abcd')).toBe(false);
  });
});
