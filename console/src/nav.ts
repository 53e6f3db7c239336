/** The console's pages in navigation order: path, label, and whether only admins see it. */
export const CONSOLE_PAGES: ReadonlyArray<{ path: string; label: string; adminOnly?: boolean }> = [
  { path: '/', label: 'Overview' },
  { path: '/keys', label: 'API keys' },
  { path: '/tasks', label: 'Tasks' },
  { path: '/playground', label: 'Playground' },
  { path: '/billing', label: 'Billing' },
  { path: '/documents', label: 'Documents' },
  { path: '/admin', label: 'Administration', adminOnly: true },
  { path: '/account', label: 'Account' },
];
