import { clipText, wholeCharacterCut } from '../src/text';

describe('cutting text on whole characters', () => {
  it('never keeps half of a surrogate pair', () => {
    expect(clipText('ab😀cd', 3)).toBe('ab');
    expect(clipText('ab😀cd', 4)).toBe('ab😀');
    expect(clipText('a' + '😀'.repeat(200), 300)).toBe('a' + '😀'.repeat(149));
    expect(clipText('short', 300)).toBe('short');
  });

  it('moves a cut inside a pair before or after the character', () => {
    expect(wholeCharacterCut('x𝒳y', 2, 'start')).toBe(1);
    expect(wholeCharacterCut('x𝒳y', 2, 'end')).toBe(3);
    expect(wholeCharacterCut('xyz', 2, 'start')).toBe(2);
    expect(wholeCharacterCut('😀', 0, 'end')).toBe(0);
  });
});
