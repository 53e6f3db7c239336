import { AppError } from '@tollgate/kit';
import { checkTags, maySee, slugify } from '../src/domain/document';
import { freeSlug, slugAllocator } from '../src/usecases/create-document';
import { changedFields } from '../src/usecases/update-document';

describe('document rules', () => {
  it('makes URL slugs from titles', () => {
    expect(slugify('Getting Started: Über Guide!')).toBe('getting-started-uber-guide');
    expect(slugify('  --API v2 -- ')).toBe('api-v2');
    expect(slugify('文档')).toBe('');
    expect(slugify('x'.repeat(500)).length).toBeLessThanOrEqual(112);
  });

  it('picks the first free numbered slug', () => {
    expect(freeSlug('a', new Set())).toBe('a');
    expect(freeSlug('a', new Set(['a', 'a-2', 'a-4']))).toBe('a-3');
    const allocate = slugAllocator(new Set(['a', 'a-2', 'a-4', 'b-2']));
    expect(['a', 'a', 'b', 'a', 'b', 'c', 'a'].map(allocate)).toEqual(['a-3', 'a-5', 'b', 'a-6', 'b-3', 'c', 'a-7']);
  });

  it('trims, de-duplicates and bounds tags', () => {
    expect(checkTags([' x ', 'x', '', 'y'])).toEqual(['x', 'y']);
    expect(() => checkTags(Array.from({ length: 21 }, (_, i) => `t${i}`))).toThrow(AppError);
    expect(() => checkTags(['t'.repeat(41)])).toThrow('at most 40');
  });

  it('keeps only the fields that differ', () => {
    const current = { id: 1, slug: 's', title: 'T', content: 'C', category: '', tags: ['a'], authorAccountId: 1, status: 'published', version: 1, createdAt: new Date(), updatedAt: new Date(), deletedAt: null };
    expect(changedFields(current, { title: 'T', tags: ['a'] })).toEqual({});
    expect(changedFields(current, { title: 'U', tags: ['a', 'b'], status: 'published' })).toEqual({ title: 'U', tags: ['a', 'b'] });
  });

  it('lets everyone see published documents and only author or admin see drafts', () => {
    const draft = { authorAccountId: 1, status: 'draft' };
    expect(maySee({ accountId: 1, isAdmin: false }, draft)).toBe(true);
    expect(maySee({ accountId: 2, isAdmin: false }, draft)).toBe(false);
    expect(maySee({ accountId: 2, isAdmin: true }, draft)).toBe(true);
    expect(maySee({ accountId: 2, isAdmin: false }, { ...draft, status: 'published' })).toBe(true);
  });
});
