/**
 * In-process CPU profiling of one phase of a benchmark (the main thread only): with
 * BENCH_CPU_PROFILE=<prefix>, `profilePhase('creates', fn)` writes <prefix>-creates.cpuprofile.
 * Open it in Chrome DevTools or summarise it; without the variable it just runs `fn`.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export async function profilePhase<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  const prefix = process.env.BENCH_CPU_PROFILE;
  if (!prefix) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(`${prefix}-${phase}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}
