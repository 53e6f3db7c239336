const SCALE = 1_000_000n;

/** Decimal string (at most 6 places) → integer millionths; '' counts as 0. */
export function toMicros(s: string): bigint {
  if (!s) return 0n;
  const negative = s.startsWith('-');
  const [int, frac = ''] = (negative ? s.slice(1) : s).split('.');
  const v = BigInt(int || '0') * SCALE + BigInt((frac + '000000').slice(0, 6));
  return negative ? -v : v;
}

export function fromMicros(v: bigint): string {
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const frac = (abs % SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / SCALE}${frac ? `.${frac}` : ''}`;
}
