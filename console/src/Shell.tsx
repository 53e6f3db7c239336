import { useState } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useSession } from './session';
import { SignIn } from './pages/SignIn';
import { CONSOLE_PAGES } from './nav';
import { Loading } from './ui/kit';

function ThemeToggle() {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      aria-label={`Switch to ${next} theme`}
      onClick={() => {
        document.documentElement.dataset.theme = next;
        localStorage.setItem('tollgate.theme', next);
        setTheme(next);
      }}
    >
      {next === 'dark' ? 'Dark theme' : 'Light theme'}
    </button>
  );
}

export function Shell() {
  const { user, loading, signOut } = useSession();
  const queryClient = useQueryClient();
  if (loading) return <main className="centered"><Loading /></main>;
  if (!user) return <SignIn />;
  const pages = CONSOLE_PAGES.filter((p) => !p.adminOnly || user.permissions.admin).map((p): [string, string] => [p.path, p.label]);
  return (
    <div className="layout">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Tollgate</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map(([to, label]) => (
              <li key={to}>
                <NavLink to={to} end={to === '/'}>
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {user.name}
            {user.permissions.admin ? ' (admin)' : ''}
          </span>
          <ThemeToggle />
          <button
            type="button"
            onClick={() => {
              queryClient.clear();
              void signOut();
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
