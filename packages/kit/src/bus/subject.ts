const TOKEN = /^[^\s.*>]+$/;

/** A concrete subject (no wildcards) as accepted by `publish`. */
export function isValidSubject(subject: string): boolean {
  return subject.split('.').every((t) => TOKEN.test(t));
}

/** A subscription filter: tokens, `*` for one token, `>` as the last token for one or more. */
export function isValidFilter(filter: string): boolean {
  const tokens = filter.split('.');
  return tokens.every((t, i) => TOKEN.test(t) || t === '*' || (t === '>' && i === tokens.length - 1));
}

export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

/** True when every subject matched by `inner` is also matched by `outer`. */
export function filterCovers(outer: string, inner: string): boolean {
  const o = outer.split('.');
  const n = inner.split('.');
  for (let i = 0; i < o.length; i++) {
    if (o[i] === '>') return n.length > i;
    if (i >= n.length || n[i] === '>') return false;
    if (o[i] === '*') continue;
    if (o[i] !== n[i]) return false;
  }
  return o.length === n.length;
}

export function toList(subjects: string | string[]): string[] {
  return Array.isArray(subjects) ? subjects : [subjects];
}
