import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTotalConnections, openFilesLimit } from './connection-limits';

describe('the default connection cap', () => {
  const limitsFile = (maxOpenFiles: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'limits-')), 'limits');
    writeFileSync(file, `Limit                     Soft Limit           Hard Limit           Units\nMax processes             95000                95000                processes\nMax open files            ${maxOpenFiles}                20000                files\n`);
    return file;
  };

  it('reads the soft open-files limit', () => {
    expect(openFilesLimit(limitsFile('20000'))).toBe(20_000);
    expect(openFilesLimit(limitsFile('unlimited'))).toBeUndefined();
    expect(openFilesLimit('/nonexistent/limits')).toBeUndefined();
  });

  it('keeps a quarter of the descriptors, at least 1,024, free', () => {
    expect(defaultTotalConnections(20_000)).toBe(15_000);
    expect(defaultTotalConnections(1_048_576)).toBe(786_432);
    expect(defaultTotalConnections(2_048)).toBe(1_024);
    expect(defaultTotalConnections(1_024)).toBe(64);
    expect(defaultTotalConnections(undefined)).toBe(8_192);
  });

  it("reads this process's limit on Linux", () => {
    if (process.platform !== 'linux') return;
    expect(openFilesLimit()).toBeGreaterThan(0);
  });
});
