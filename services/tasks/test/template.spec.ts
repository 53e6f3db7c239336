import { lookup, placeholders, render } from '../src/executors/template';

describe('templates', () => {
  it('lists the placeholders once each and refuses malformed ones', () => {
    expect(placeholders('{{a}} {{ b.c }} {{a}} {{steps.x.0}}')).toEqual(['a', 'b.c', 'steps.x.0']);
    expect(() => placeholders('{{ two words }}')).toThrow('is not a name or a dotted path');
    expect(() => placeholders('{{open')).toThrow('is not closed');
    expect(() => placeholders('{{}}')).toThrow();
  });

  it('renders strings as they are, other values as JSON, and reports what has no value', () => {
    const root = { s: 'text', n: 0, f: false, o: { k: [1, { z: null }] } };
    expect(render('{{s}}|{{n}}|{{f}}|{{o.k}}|{{o.k.1.z}}|{{o.nope}}|{{nope.deeper}}', root)).toEqual({ text: 'text|0|false|[1,{"z":null}]|null||', missing: ['o.nope', 'nope.deeper'] });
  });

  it('walks only own properties', () => {
    expect(lookup({}, 'constructor')).toBeUndefined();
    expect(lookup({ a: 'x' }, 'a.length')).toBeUndefined();
  });
});
