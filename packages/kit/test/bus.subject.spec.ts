import { filterCovers, isValidFilter, isValidSubject, subjectMatches } from '../src/bus/subject';

describe('subjectMatches', () => {
  it.each([
    ['tasks.status.*', 'tasks.status.42', true],
    ['tasks.status.*', 'tasks.status', false],
    ['tasks.status.*', 'tasks.status.42.x', false],
    ['tasks.>', 'tasks.status.42', true],
    ['tasks.>', 'tasks', false],
    ['>', 'a', true],
    ['*.changed.*', 'keys.changed.7', true],
    ['docs.document.created', 'docs.document.created', true],
    ['docs.document.created', 'docs.document.updated', false],
    ['keys.*', 'keys.changed.7', false],
  ])('%s ~ %s → %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });
});

describe('filterCovers', () => {
  it.each([
    ['tasks.>', 'tasks.status.*', true],
    ['tasks.>', 'tasks.>', true],
    ['tasks.>', 'tasks', false],
    ['tasks.*', 'tasks.>', false],
    ['tasks.*.x', 'tasks.*.x', true],
    ['tasks.a.x', 'tasks.*.x', false],
    ['>', 'anything.>', true],
    ['docs.>', 'tasks.>', false],
  ])('%s ⊇ %s → %s', (outer, inner, expected) => {
    expect(filterCovers(outer, inner)).toBe(expected);
  });
});

describe('validation', () => {
  it('accepts concrete subjects and rejects wildcards, blanks and empty tokens', () => {
    expect(isValidSubject('tasks.status.42')).toBe(true);
    for (const bad of ['', 'a..b', 'a.*', 'a.>', 'a b', '.a', 'a.']) expect(isValidSubject(bad)).toBe(false);
  });

  it('accepts filters with * anywhere and > only last', () => {
    expect(isValidFilter('*.status.>')).toBe(true);
    for (const bad of ['a.>.b', 'a.b*', 'a..b', '']) expect(isValidFilter(bad)).toBe(false);
  });
});
