/**
 * Console pages on localhost: how long each page takes to show its data.
 * `pnpm exec tsx bench/console.ts` starts the embedded system (as `pnpm start` runs it, on fresh
 * databases of the local PostgreSQL), seeds a little data through the public API, signs in as the
 * admin in Debian's chromium and, per page, reports (a) a full load of its URL and (b) a click in
 * the navigation: the time until the page's last data request has finished, measured from
 * Playwright's request events (the page renders right after). Median of 5 runs per page.
 * Not a test: it prints numbers and asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { SERVICE_NAMES, silentLogger } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { loadSystemConfig, startEmbeddedSystem } from '@tollgate/system';
import type { Page } from 'playwright-core';
import { buildConsole } from '../scripts/console-build';
import { launchChromium } from '../test/support/browser';
import { CONSOLE_PAGES } from '../console/src/nav';
import { median } from './report';

const ADMIN = `tg-console-bench-${randomBytes(8).toString('hex')}`;
const RUNS = 5;
const PAGES: Array<[string, string]> = CONSOLE_PAGES.map((p) => [p.path, p.label]);
/** Data requests; event streams (`…/events`) stay open by design and are not waited for. */
const DATA = /\/(api|v1|apikeys)\/(?!.*\/events(\?|$))/;
const MAX_WAIT_MS = 10_000;

/** Runs `act`, then waits until no data request is in flight for 300 ms; returns ms until the last one finished. */
async function dataTime(page: Page, act: () => Promise<unknown>): Promise<number> {
  let inFlight = 0;
  let last = 0;
  const onRequest = (r: { url(): string }) => void (DATA.test(r.url()) && inFlight++);
  const onDone = (r: { url(): string }) => {
    if (!DATA.test(r.url())) return;
    inFlight--;
    last = performance.now();
  };
  page.on('request', onRequest);
  page.on('requestfinished', onDone);
  page.on('requestfailed', onDone);
  const t0 = performance.now();
  await act();
  while (!(inFlight <= 0 && performance.now() - Math.max(last, t0) >= 300) && performance.now() - t0 < MAX_WAIT_MS) {
    await new Promise((r) => setTimeout(r, 20));
  }
  page.off('request', onRequest);
  page.off('requestfinished', onDone);
  page.off('requestfailed', onDone);
  return Math.max(0, last - t0);
}

async function main(): Promise<void> {
  const browser = await launchChromium();
  if (!browser) throw new Error('no chromium');
  if (!buildConsole()) throw new Error('the console could not be built');
  const urls: Record<string, string> = {};
  for (const name of SERVICE_NAMES) urls[`DATABASE_URL_${name.toUpperCase()}`] = (await createTestDatabase(`console_${name}`))!;
  const env = { ...urls, TOLLGATE_ADMIN_TOKEN: ADMIN, TOLLGATE_DATA_DIR: `/tmp/tg-console-${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'silent' };
  const config = loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...env });
  const system = await startEmbeddedSystem({ config, log: silentLogger(), env, threads: config.TOLLGATE_THREADS === 'on' });
  const https = system.gateway.httpsUrl!;
  try {
    // a little of everything, so each page has rows to show
    const key = (await (await fetch(`${system.gateway.httpUrl}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: ADMIN, name: 'bench' }) })).json()) as { data: { key: string } };
    for (let i = 0; i < 20; i++) {
      await fetch(`${system.gateway.httpUrl}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { authorization: `Bearer ${key.data.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: `hello ${i}` }] }) });
    }
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    for (let i = 0; i < 20; i++) {
      await page.request.post(`${https}/api/v1/documents`, { headers: { authorization: `Bearer ${ADMIN}` }, data: { title: `Bench document ${i}`, content: `# Document ${i}\n\nSome text about deployment and tokens.` } });
    }
    await page.goto(`${https}/console/`);
    await page.getByLabel('User token', { exact: true }).check();
    await page.getByRole('textbox', { name: 'User token' }).fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const rows: string[] = [];
    for (const [path, name] of PAGES) {
      const loads: number[] = [];
      const clicks: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        loads.push(await dataTime(page, () => page.goto(`${https}/console${path}`)));
        const other = path === '/' ? 'Account' : 'Overview';
        await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: other, exact: true }).click();
        await dataTime(page, async () => undefined);
        clicks.push(await dataTime(page, () => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click()));
      }
      rows.push(`| ${name} | ${median(loads).toFixed(0)} | ${Math.max(...loads).toFixed(0)} | ${median(clicks).toFixed(0)} | ${Math.max(...clicks).toFixed(0)} |`);
    }
    console.log(['', `console pages on localhost (HTTPS, embedded system, threads ${config.TOLLGATE_THREADS}), ms until the page's last data request finished, ${RUNS} runs`, '', '| page | full load, median | full load, max | navigation click, median | navigation click, max |', '|---|---:|---:|---:|---:|', ...rows].join('\n'));
    await context.close();
  } finally {
    await browser.close();
    await system.stop();
    for (const u of Object.values(urls)) await dropTestDatabase(u);
    await releaseTestPostgres();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
