import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole } from '../../scripts/console-build';
import { startTestSystem, type TestSystem } from '../support/system';
import { launchChromium, screenshot, seriousViolations } from '../support/browser';
import { api, postForm } from './keys-support';

jest.setTimeout(120_000);

// The web console in a real browser (Debian's chromium) against the whole embedded system.
describe('web console in a browser', () => {
  let t: TestSystem | null = null;
  let browser: Browser | null = null;
  const contexts: BrowserContext[] = [];
  let admin: Page;
  let user: Page;
  const email = `ada-${Date.now()}@example.com`;
  const password = 'analytical engine 1843';
  let keySecret = '';
  let playgroundTask = '';
  let adaToken = '';

  beforeAll(async () => {
    browser = await launchChromium();
    if (!browser) return;
    if (!buildConsole()) throw new Error('the console could not be built');
    t = await startTestSystem();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await t?.stop();
  });

  async function newPage(): Promise<Page> {
    const context = await browser!.newContext({ ignoreHTTPSErrors: true, bypassCSP: true, viewport: { width: 1280, height: 860 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  const go = (page: Page, path: string) => page.goto(`${t!.https}/console${path}`);
  const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true });

  async function accessible(page: Page, name: string): Promise<void> {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  }

  it('an admin signs in with the user token (/ redirects a browser to the console)', async () => {
    if (!t) return;
    admin = await newPage();
    await admin.goto(`${t.https}/`);
    expect(admin.url()).toBe(`${t.https}/console/`);
    await admin.getByRole('heading', { name: 'Sign in to Tollgate' }).waitFor();
    await accessible(admin, 'sign-in');
    await screenshot(admin, 'sign-in');
    await admin.getByLabel('User token', { exact: true }).check();
    await admin.getByRole('textbox', { name: 'User token' }).fill('tg-wrong-token');
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('alert').filter({ hasText: 'wrong email, password or user token' }).waitFor();
    // repeated failures for one account: the form says when to try again (429 + Retry-After)
    await admin.getByLabel('Email and password').check();
    await admin.getByRole('textbox', { name: 'Email' }).fill('nobody@example.com');
    await admin.getByLabel('Password', { exact: true }).fill('not a password');
    for (let i = 0; i < 5; i++) {
      await admin.getByRole('button', { name: 'Sign in' }).click();
      await admin.getByRole('button', { name: 'Sign in' }).waitFor();
    }
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('alert').filter({ hasText: /^too many failed sign-in attempts: try again in \d+ s$/ }).waitFor();
    await admin.getByLabel('User token', { exact: true }).check();
    await admin.getByRole('textbox', { name: 'User token' }).fill(t.adminToken);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect(nav(admin, 'Administration').isVisible()).resolves.toBe(true);
  });

  it('the admin creates a user with a password on the Administration page, who then signs in', async () => {
    if (!t) return;
    await nav(admin, 'Administration').click();
    await admin.getByRole('heading', { name: 'Service health' }).waitFor();
    const create = admin.getByRole('form', { name: 'Create a user' });
    await create.getByLabel('Name').fill('Ada');
    await create.getByLabel('User email').fill(email);
    await create.getByLabel('Level').selectOption('pro');
    await create.getByLabel('Initial password').fill(password);
    await create.getByRole('button', { name: 'Create user' }).click();
    adaToken = (await admin.getByTestId('shown-user-token').textContent())!;
    expect(adaToken).toMatch(/^tg-[A-Za-z0-9]{40}$/);
    await admin.getByRole('cell', { name: email }).waitFor();
    await admin.getByText('keys: serving').waitFor();
    await accessible(admin, 'administration');
    await screenshot(admin, 'administration');

    user = await newPage();
    await go(user, '/');
    // with the keyboard only
    await user.getByRole('textbox', { name: 'Email' }).focus();
    await user.keyboard.type(email);
    await user.keyboard.press('Tab');
    await user.keyboard.type(password);
    await user.keyboard.press('Enter');
    await user.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect(user.getByText('Ada', { exact: true }).isVisible()).resolves.toBe(true);
  });

  it('a non-admin sees no admin page and is refused by the admin APIs', async () => {
    if (!t) return;
    await expect(nav(user, 'Administration').count()).resolves.toBe(0);
    await go(user, '/admin');
    await user.getByText('This page is for administrators.').waitFor();
    const statuses = await user.evaluate(async () => {
      const csrf = ((await (await fetch('/api/v1/session')).json()) as { data: { csrf_token: string } }).data.csrf_token;
      const list = await fetch('/api/v1/users');
      const create = await fetch('/api/v1/users', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ name: 'x', email: 'x@example.com' }) });
      const analytics = await fetch('/api/v1/search/analytics');
      return [list.status, create.status, analytics.status];
    });
    expect(statuses).toEqual([403, 403, 403]);
  });

  it('creates a key and reads its secret once', async () => {
    if (!t) return;
    await nav(user, 'API keys').click();
    await user.getByRole('heading', { name: 'API keys' }).waitFor();
    await user.getByText('No keys yet.').waitFor();
    const create = user.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('Name').fill('console key');
    await create.getByLabel('Quota (¥)').fill('100');
    await create.getByLabel('Requests per minute').fill('120');
    await create.getByRole('button', { name: 'Create key' }).click();
    keySecret = (await user.getByTestId('new-key-secret').textContent())!;
    expect(keySecret).toMatch(/^ak-[A-Za-z0-9]{32}$/);
    await user.getByRole('button', { name: 'Use for Tasks and Playground' }).click();
    await user.getByRole('cell', { name: 'console key', exact: true }).waitFor();
    await accessible(user, 'api-keys');
    await user.getByRole('button', { name: 'Done' }).click();
    await screenshot(user, 'api-keys');
    await user.reload();
    await user.getByRole('cell', { name: 'console key', exact: true }).waitFor();
    await expect(user.content()).resolves.not.toContain(keySecret);
    await expect(user.getByRole('cell', { name: `${keySecret.slice(0, 11)}...` }).isVisible()).resolves.toBe(true);
    // edit and delete (with confirmation) another key
    await user.getByText('Create a key').click();
    const create2 = user.getByRole('form', { name: 'Create a key' });
    await create2.getByLabel('Name').fill('temporary key');
    await create2.getByRole('button', { name: 'Create key' }).click();
    await user.getByRole('button', { name: 'Done' }).click();
    await user.getByRole('button', { name: 'Edit temporary key' }).click();
    const edit = user.getByRole('form', { name: 'Edit key' });
    await edit.getByLabel('Name').fill('retired key');
    await edit.getByLabel('Status').selectOption('禁用');
    await edit.getByRole('button', { name: 'Save' }).click();
    const row = user.getByRole('row').filter({ has: user.getByRole('cell', { name: 'retired key', exact: true }) });
    await row.locator('[data-status="禁用"]').waitFor();
    user.once('dialog', (d) => void d.accept());
    await user.getByRole('button', { name: 'Delete retired key' }).click();
    await row.waitFor({ state: 'detached' });
    await user.getByRole('cell', { name: 'console key', exact: true }).waitFor();
  });

  it('edits a key: an emptied quota, expiry or comments is cleared, an untouched expiry keeps its seconds, a double click makes one key', async () => {
    if (!t) return;
    const made = await postForm(t, '/apikeys/create', { token: adaToken, name: 'edited key', quota: '5', expired_time: '20301231235959', comments: 'hello' });
    expect(made.status).toBe(200);
    const stored = async () => (await postForm(t!, '/apikeys/list', { token: adaToken })).body.data.items.find((k: any) => k.id === made.body.data.id);
    await go(user, '/keys');
    const edit = user.getByRole('form', { name: 'Edit key' });
    await user.getByRole('button', { name: 'Edit edited key' }).click();
    await edit.getByLabel('Name').fill('edited key 2');
    await edit.getByRole('button', { name: 'Save' }).click();
    await user.getByRole('cell', { name: 'edited key 2', exact: true }).waitFor();
    expect(await stored()).toMatchObject({ name: 'edited key 2', quota: 5, expired_time: '20301231235959', comments: 'hello' });

    await user.getByRole('button', { name: 'Edit edited key 2' }).click();
    await edit.getByLabel('Quota (¥)').fill('');
    await edit.getByLabel('Expires (UTC)').fill('');
    await edit.getByLabel('Comments').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await stored()).toMatchObject({ quota: null, expired_time: null, comments: '' });

    await user.getByText('Create a key').click();
    const create = user.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('Name').fill('clicked twice');
    await create.getByRole('button', { name: 'Create key' }).dblclick();
    await user.getByTestId('new-key-secret').waitFor();
    await user.getByRole('button', { name: 'Done' }).click();
    const all = (await postForm(t, '/apikeys/list', { token: adaToken })).body.data.items.filter((k: any) => k.name === 'clicked twice');
    expect(all).toHaveLength(1);
  });

  it('shows the server\'s message instead of crashing when a list cannot be read (admin taken away while the page is open)', async () => {
    if (!t) return;
    const made = await api(t, 'POST', '/api/v1/users', t.adminToken, { name: 'Second admin', email: `admin2-${Date.now()}@example.com`, level: 'pro', permissions: { admin: true } });
    expect(made.status).toBe(201);
    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await go(page, '/');
    await page.getByLabel('User token', { exact: true }).check();
    await page.getByRole('textbox', { name: 'User token' }).fill(made.body.data.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect((await api(t, 'PUT', `/api/v1/users/${made.body.data.id}`, t.adminToken, { permissions: { admin: false } })).status).toBe(200);
    await nav(page, 'Administration').click();
    await page.getByRole('alert').filter({ hasText: 'admin permission' }).first().waitFor();
    await expect(page.getByText('Unexpected Application Error').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it('reads the session afresh when another tab signed in as someone else, instead of mixing two users', async () => {
    if (!t) return;
    await go(user, '/keys');
    await user.getByRole('cell', { name: 'edited key 2', exact: true }).waitFor();
    const other = await user.context().newPage();
    await other.goto(`${t.https}/console/`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByLabel('User token', { exact: true }).check();
    await other.getByRole('textbox', { name: 'User token' }).fill(t.adminToken);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { name: 'Overview' }).waitFor();
    // This tab still believes it is Ada's; its next state change finds another session.
    await user.getByText('Create a key').click();
    await user.getByRole('form', { name: 'Create a key' }).getByLabel('Name').fill('from the old tab');
    await user.getByRole('form', { name: 'Create a key' }).getByRole('button', { name: 'Create key' }).click();
    await user.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Administration', exact: true }).waitFor();
    await expect(user.getByText('Ada', { exact: true }).count()).resolves.toBe(0);
    // Back to Ada for the tests that follow.
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByLabel('Email and password').check();
    await other.getByRole('textbox', { name: 'Email' }).fill(email);
    await other.getByLabel('Password', { exact: true }).fill(password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { name: 'Overview' }).waitFor();
    await other.close();
    await user.reload();
    await user.getByText('Ada', { exact: true }).waitFor();
  });

  it('runs the playground with streaming, billed to the chosen key', async () => {
    if (!t) return;
    await nav(user, 'Playground').click();
    await user.getByRole('heading', { name: 'Playground' }).waitFor();
    await user.getByLabel('App', { exact: true }).selectOption('demo-chatbot');
    await expect(user.locator('pre.code').first().textContent()).resolves.toContain('/v1/chatbot/demo-chatbot/sync');
    const streamed = user.waitForResponse((r) => r.url().endsWith('/v1/chatbot/demo-chatbot/sync'));
    await user.getByRole('textbox', { name: 'Message' }).fill('Hello console streaming');
    await user.getByRole('button', { name: 'Send' }).click();
    const response = await streamed;
    expect(response.headers()['content-type']).toMatch(/^text\/event-stream/);
    expect(response.request().headers().authorization).toBe(`Bearer ${keySecret}`);
    await user.getByTestId('msg-assistant').filter({ hasText: 'Echo: Hello console streaming' }).waitFor();
    playgroundTask = (await user.getByTestId('pg-task').textContent())!;
    expect(playgroundTask).not.toBe('');
    // A refused run shows the server's message, field by field, not its JSON.
    await user.getByLabel('Temperature').fill('3');
    await user.getByRole('textbox', { name: 'Message' }).fill('too hot');
    await user.getByRole('button', { name: 'Send' }).click();
    const refused = user.getByRole('alert').filter({ hasText: 'temperature' });
    await refused.waitFor();
    await expect(refused.textContent()).resolves.not.toContain('[{');
    await user.getByLabel('Temperature').fill('0.7');
    await accessible(user, 'playground');
    await screenshot(user, 'playground');
  });

  it('finds that run under Tasks', async () => {
    if (!t) return;
    await nav(user, 'Tasks').click();
    await user.getByRole('link', { name: playgroundTask, exact: true }).click();
    await user.getByRole('heading', { name: `Task ${playgroundTask}` }).waitFor();
    await expect(user.getByTestId('task-status').getAttribute('data-status')).resolves.toBe('已完成');
    await go(user, '/tasks');
    await user.getByRole('link', { name: playgroundTask, exact: true }).waitFor();
    await user.getByLabel('Kind').selectOption('chatbot');
    await user.getByRole('link', { name: playgroundTask, exact: true }).waitFor();
    await user.getByLabel('Kind').selectOption('agent');
    await user.getByText('No tasks match these filters.').waitFor();
    await user.getByLabel('Kind').selectOption('');
    await user.getByRole('link', { name: playgroundTask, exact: true }).waitFor();
    await accessible(user, 'tasks');
    await screenshot(user, 'tasks');
  });

  it('starts a slow task and cancels it from its page, which follows its events', async () => {
    if (!t) return;
    const res = await fetch(`${t.http}/v1/chatbot/demo-chatbot/async`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keySecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten eleven twelve' }], call_params: { echo_delay_ms: 5_000 } }),
    });
    expect(res.status).toBe(200);
    const { task_number } = (await res.json()) as { task_number: string };
    await go(user, `/tasks/${task_number}`);
    await user.getByRole('button', { name: 'Cancel task' }).click();
    await user.locator('[data-testid="task-status"][data-status="已取消"]').waitFor();
    await expect(user.getByRole('button', { name: 'Cancel task' }).count()).resolves.toBe(0);
    const stored = (await (await fetch(`${t.http}/v1/task-query/${task_number}`, { headers: { authorization: `Bearer ${keySecret}` } })).json()) as { status: string };
    expect(stored.status).toBe('已取消');
    await accessible(user, 'task-detail');
    await screenshot(user, 'task-detail');
  });

  it('the overview chart counts the executions', async () => {
    if (!t) return;
    const sync = await fetch(`${t.http}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { authorization: `Bearer ${keySecret}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'count me' }] }) });
    expect(sync.status).toBe(200);
    const usage = (await api(t, 'GET', '/v1/billing/usage', undefined)).status;
    expect(usage).toBe(401);
    await nav(user, 'Overview').click();
    const chart = user.getByTestId('executions-chart');
    await chart.waitFor();
    // the playground run (chatbot) and the agent run; the cancelled task is refunded, not counted
    await expect(chart.getAttribute('data-total')).resolves.toBe('2');
    await expect(chart.getByRole('listitem').getByText('chatbot: 1').isVisible()).resolves.toBe(true);
    await expect(chart.getByRole('listitem').getByText('agent: 1').isVisible()).resolves.toBe(true);
    // Each stat shows "…" until its own request answers.
    const loaded = (testId: string) => user.getByTestId(testId).filter({ hasNotText: '…' });
    await loaded('stat-executions-today').waitFor();
    await expect(user.getByTestId('stat-executions-today').textContent()).resolves.toBe('2');
    // two completed, one cancelled, none failed (GET /v1/account/task-stats)
    await loaded('stat-error-rate-30-days-').waitFor();
    await expect(user.getByTestId('stat-error-rate-30-days-').textContent()).resolves.toBe('0.0 %');
    await accessible(user, 'overview');
    await screenshot(user, 'overview');
    await user.getByRole('button', { name: 'Switch to dark theme' }).click();
    await accessible(user, 'overview (dark)');
    await screenshot(user, 'overview-dark');
    await user.getByRole('button', { name: 'Switch to light theme' }).click();
  });

  it('shows the bill and usage charts on Billing', async () => {
    if (!t) return;
    await nav(user, 'Billing').click();
    await user.getByRole('heading', { name: 'Billing' }).waitFor();
    await user.getByRole('cell', { name: 'demo-chatbot', exact: true }).waitFor();
    await expect(user.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).resolves.toMatch(/^\/v1\/billing\/bills\/\d{4}-\d{2}\?format=csv$/);
    await accessible(user, 'billing');
    await screenshot(user, 'billing');
  });

  it('writes a document with a preview, finds it by searching as you type, and restores a revision', async () => {
    if (!t) return;
    await nav(user, 'Documents').click();
    await user.getByText('No documents yet.').waitFor();
    await user.getByRole('link', { name: 'New document' }).click();
    await user.getByLabel('Title').fill('Quasar handbook');
    await user.getByLabel('Content (markdown)').fill('# Quasars\n\nA **quasar** is very bright.');
    await user.getByRole('region', { name: 'Preview' }).getByRole('heading', { name: 'Quasars' }).waitFor();
    await user.getByRole('button', { name: 'Create' }).click();
    await user.getByRole('heading', { name: 'Quasar handbook' }).waitFor();
    await user.getByLabel('Title').fill('Quasar handbook, second edition');
    await user.getByRole('button', { name: 'Save' }).click();
    await user.getByRole('button', { name: 'Restore v1' }).waitFor();
    await accessible(user, 'document');
    await screenshot(user, 'document-edit');
    await user.getByRole('button', { name: 'Restore v1' }).click();
    await user.getByRole('heading', { name: 'Quasar handbook', exact: true }).waitFor();
    await nav(user, 'Documents').click();
    await user.getByLabel('Search documents').pressSequentially('quas', { delay: 30 });
    await user.getByRole('list', { name: 'Search results' }).locator('mark').first().waitFor();
    await accessible(user, 'documents');
    await screenshot(user, 'documents');
  });

  it('wraps a long word in a title instead of widening the page', async () => {
    if (!t) return;
    const doc = await api(t, 'POST', '/api/v1/documents', adaToken, { title: 'LongWordWithoutSpaces'.repeat(9), content: 'x', category: 'layout' });
    expect(doc.status).toBe(201);
    await go(user, `/documents/${doc.body.data.id}`);
    await user.getByRole('heading', { name: 'LongWordWithoutSpaces'.repeat(9) }).waitFor();
    await expect(user.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(1280);
  });

  it('pages to the end of a list whose total is an estimate (above 100 rows)', async () => {
    if (!t) return;
    const documents = Array.from({ length: 140 }, (_, i) => ({ title: `Paged doc ${String(i).padStart(3, '0')}`, content: 'x', category: 'paging' }));
    expect((await api(t, 'POST', '/api/v1/documents/bulk', adaToken, { documents })).status).toBe(200);
    await go(user, '/documents');
    const seen = new Set<string>();
    for (let page = 1; page <= 20; page++) {
      await user.getByText(new RegExp(`^Page ${page} of`)).waitFor();
      // Past an estimated total the last page may be empty: it says so and still offers the way back.
      if (await user.getByText('No more documents: the count was an estimate.').isVisible()) break;
      await user.getByRole('table').waitFor();
      for (const title of await user.getByRole('link', { name: /^Paged doc \d{3}$/ }).allTextContents()) seen.add(title);
      const next = user.getByRole('button', { name: 'Next' });
      if (await next.isDisabled()) break;
      await next.click();
    }
    expect(seen.size).toBe(140);
  });

  it('the account page rotates the user token (shown once)', async () => {
    if (!t) return;
    await nav(user, 'Account').click();
    user.once('dialog', (d) => void d.accept());
    await user.getByRole('button', { name: 'Rotate my user token' }).click();
    const token = (await user.getByTestId('rotated-token').textContent())!;
    expect(token).toMatch(/^tg-[A-Za-z0-9]{40}$/);
    expect((await api(t, 'GET', '/api/v1/users/me', token)).status).toBe(200);
    await accessible(user, 'account');
    await screenshot(user, 'account');
  });

  it('signs out: the session ends on the server', async () => {
    if (!t) return;
    await user.getByRole('button', { name: 'Sign out' }).click();
    await user.getByRole('heading', { name: 'Sign in to Tollgate' }).waitFor();
    await expect(user.evaluate(async () => (await fetch('/api/v1/session')).status)).resolves.toBe(401);
    await go(user, '/keys');
    await user.getByRole('heading', { name: 'Sign in to Tollgate' }).waitFor();
  });
});
