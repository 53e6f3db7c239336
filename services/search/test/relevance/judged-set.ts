import type { SearchDoc } from '../../src/engine/types';

/**
 * A small judged relevance set: documents written like the product's own help pages, where
 * words overlap on purpose (many pages mention tokens, installs or limits), and queries with the
 * documents a reader expects in the top 3. Typing errors (a dropped, swapped or wrong letter) and
 * unfinished last words are included, as people type them.
 */
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`);
let nextId = 100;
const doc = (title: string, text: string, category: string, tags: string[], updated = '2025-03-01'): SearchDoc => {
  const id = nextId++;
  return { id, slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'), title, text, category, tags, authorAccountId: 1, createdAt: day('2025-01-01'), updatedAt: day(updated) };
};

export const JUDGED_DOCS: SearchDoc[] = [
  doc('Installing on Linux', 'Download the package, run the installer and start the service. The install script needs root. After the installation, open the dashboard.', 'guides', ['setup', 'linux']),
  doc('Installing on macOS', 'Use Homebrew to install the command line tools, then start the service with launchd. The installation needs no reboot.', 'guides', ['setup', 'macos']),
  doc('Upgrading to a new release', 'Back up the database, stop the service, install the new release and run the migrations. A failed upgrade can be rolled back.', 'guides', ['upgrade']),
  doc('API tokens', 'Create an API token in the dashboard. A token is shown once; store it safely. Revoke a token that leaked. Every request carries the token in the Authorization header.', 'reference', ['security', 'auth']),
  doc('Rotating credentials', 'Rotate tokens and passwords regularly. Create the new token first, deploy it, then revoke the old token.', 'security', ['security', 'auth']),
  doc('Single sign-on with SAML', 'Connect your identity provider with SAML. Users sign in once and get a session; no token is needed in the browser.', 'security', ['auth', 'sso']),
  doc('Rate limits', 'Each account may send a limited number of requests per minute. When the rate limit is reached the API answers 429 with a Retry-After header.', 'reference', ['limits']),
  doc('Quotas and billing', 'A quota caps the spend of a key per month. Billing counts tokens used by each model. Invoices arrive on the first day of the month.', 'reference', ['billing', 'limits']),
  doc('Webhooks', 'Register a webhook URL to be told when a task finishes. Deliveries are signed; verify the signature before trusting the payload. Failed deliveries are retried.', 'reference', ['events']),
  doc('Backups and restore', 'Take a nightly backup of the PostgreSQL database with pg_dump. To restore, stop the service and load the dump. Test your restore regularly.', 'ops', ['database', 'backup']),
  doc('Monitoring with Prometheus', 'Scrape the metrics endpoint with Prometheus. Alert on error rates and latency percentiles. A Grafana dashboard is included.', 'ops', ['monitoring']),
  doc('Troubleshooting slow searches', 'When search is slow, check the index size and the number of documents. Rebuild the index after a large import. Latency above 100 ms usually means the machine is overloaded.', 'faq', ['search', 'performance']),
  doc('Search configuration', 'Choose the embedded engine or Meilisearch. Configure synonyms, stop words and typo tolerance. Filters work on category, tags and dates.', 'guides', ['search']),
  doc('Importing documents in bulk', 'Send up to one thousand documents per request to the bulk endpoint. Each document is validated on its own; the response lists the result of every item.', 'guides', ['documents', 'import']),
  doc('Writing documents in markdown', 'Documents are written in markdown: headings, lists, links, code blocks and tables. Images are referenced by URL.', 'guides', ['documents']),
  doc('Deploying with Docker Compose', 'The compose file starts the gateway, the services, PostgreSQL and NATS. Set the environment variables in an env file before deployment.', 'ops', ['deployment', 'docker']),
  doc('Deploying on Kubernetes', 'Apply the manifests with kubectl. Each service runs as a deployment with its own readiness probe. Use a secret for the database password.', 'ops', ['deployment', 'kubernetes']),
  doc('Certificates and HTTPS', 'The gateway serves HTTPS with your certificate and key. Plain HTTP requests to the API are refused. Renew the certificate before it expires.', 'security', ['tls']),
  doc('Network proxies', 'Behind a corporate proxy, set HTTPS_PROXY for outgoing calls. Trusted proxies may set X-Forwarded-Proto.', 'ops', ['network']),
  doc('Permissions and roles', 'Accounts have permissions such as docs_read and docs_write. An administrator grants roles. A missing permission answers 403.', 'reference', ['auth']),
  doc('Task execution', 'Agents run tasks synchronously or asynchronously. An async task can be polled or cancelled. Streaming answers arrive as server-sent events.', 'reference', ['tasks']),
  doc('Database migrations', 'Every service owns its database schema. Migrations run at start; a failed migration stops the service with a clear message.', 'ops', ['database']),
  doc('Release notes 2.4', 'This release adds bulk import, faster search and typo tolerance for swapped letters. Upgrading needs no migration.', 'release-notes', ['release']),
  doc('Frequently asked questions', 'How do I reset a password? Where are tokens shown? Why is my request limited? Answers to common questions about the dashboard.', 'faq', ['help']),
];

const by = (title: string) => JUDGED_DOCS.find((d) => d.title === title)!.id;

export interface Judgement {
  q: string;
  /** Any of these in the top 3 counts as a hit. */
  relevant: number[];
}

export const JUDGEMENTS: Judgement[] = [
  { q: 'token', relevant: [by('API tokens')] },
  { q: 'api token', relevant: [by('API tokens')] },
  { q: 'rotate token', relevant: [by('Rotating credentials')] },
  { q: 'install', relevant: [by('Installing on Linux'), by('Installing on macOS')] },
  { q: 'installing linux', relevant: [by('Installing on Linux')] },
  { q: 'rate limit', relevant: [by('Rate limits')] },
  { q: 'quota', relevant: [by('Quotas and billing')] },
  { q: 'webhook signature', relevant: [by('Webhooks')] },
  { q: 'backup', relevant: [by('Backups and restore')] },
  { q: 'restore database', relevant: [by('Backups and restore')] },
  { q: 'prometheus', relevant: [by('Monitoring with Prometheus')] },
  { q: 'slow search', relevant: [by('Troubleshooting slow searches')] },
  { q: 'synonyms', relevant: [by('Search configuration')] },
  { q: 'bulk import', relevant: [by('Importing documents in bulk')] },
  { q: 'markdown', relevant: [by('Writing documents in markdown')] },
  { q: 'docker', relevant: [by('Deploying with Docker Compose')] },
  { q: 'kubernetes deployment', relevant: [by('Deploying on Kubernetes')] },
  { q: 'certificate', relevant: [by('Certificates and HTTPS')] },
  { q: 'proxy', relevant: [by('Network proxies')] },
  { q: 'permissions', relevant: [by('Permissions and roles')] },
  { q: 'cancel task', relevant: [by('Task execution')] },
  { q: 'migrations', relevant: [by('Database migrations')] },
  // unfinished last words
  { q: 'webho', relevant: [by('Webhooks')] },
  { q: 'certif', relevant: [by('Certificates and HTTPS')] },
  { q: 'monitor', relevant: [by('Monitoring with Prometheus')] },
  { q: 'deploying kube', relevant: [by('Deploying on Kubernetes')] },
  // typing errors: dropped, swapped and wrong letters
  { q: 'permisions', relevant: [by('Permissions and roles')] },
  { q: 'certifciate', relevant: [by('Certificates and HTTPS')] },
  { q: 'prometehus', relevant: [by('Monitoring with Prometheus')] },
  { q: 'migartions', relevant: [by('Database migrations')] },
  { q: 'webhoks', relevant: [by('Webhooks')] },
  { q: 'kubernetis', relevant: [by('Deploying on Kubernetes')] },
  { q: 'quotsa', relevant: [by('Quotas and billing')] },
  { q: 'tokne', relevant: [by('API tokens')] },
  { q: 'bakcup', relevant: [by('Backups and restore')] },
  { q: 'dcoker', relevant: [by('Deploying with Docker Compose')] },
  { q: 'markdwon', relevant: [by('Writing documents in markdown')] },
  { q: 'proyx', relevant: [by('Network proxies')] },
  { q: 'upgarde release', relevant: [by('Upgrading to a new release')] },
  { q: 'webhook retires', relevant: [by('Webhooks')] },
  // several words spread over title and text
  { q: 'token dashboard', relevant: [by('API tokens')] },
  { q: 'database password', relevant: [by('Deploying on Kubernetes')] },
  { q: 'sign in once', relevant: [by('Single sign-on with SAML')] },
  { q: 'latency alert', relevant: [by('Monitoring with Prometheus')] },
  { q: 'release upgrade', relevant: [by('Upgrading to a new release')] },
];

/** How many judged queries have a relevant document among the first 3 results. */
export async function hitsAt3(search: (q: string) => Promise<number[]>): Promise<{ hits: number; total: number; missed: string[] }> {
  const missed: string[] = [];
  for (const j of JUDGEMENTS) {
    const top = (await search(j.q)).slice(0, 3);
    if (!top.some((id) => j.relevant.includes(id))) missed.push(j.q);
  }
  return { hits: JUDGEMENTS.length - missed.length, total: JUDGEMENTS.length, missed };
}
