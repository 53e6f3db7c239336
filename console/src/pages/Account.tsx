import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { call, data, type User } from '../api';
import { useSession } from '../session';
import { CopyButton, ErrorNote, Field } from '../ui/kit';

export function AccountPage() {
  const { user } = useSession();
  const [token, setToken] = useState('');
  const [pw, setPw] = useState({ current: '', next: '' });
  const rotate = useMutation({ mutationFn: () => data(call<{ data: User & { token: string } }>('/api/v1/users/me/token', { method: 'POST' })), onSuccess: (u) => setToken(u.token) });
  const password = useMutation({
    mutationFn: () => call('/api/v1/users/me/password', { method: 'PUT', json: { password: pw.next, ...(pw.current && { current_password: pw.current }) } }),
    onSuccess: () => setPw({ current: '', next: '' }),
  });
  if (!user) return null;
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{user.name}</dd>
        <dt>Email</dt>
        <dd>{user.email ?? '—'}</dd>
        <dt>Level</dt>
        <dd>{user.level}</dd>
        <dt>Permissions</dt>
        <dd>{[...user.permissions.kinds, user.permissions.docs_read && 'docs read', user.permissions.docs_write && 'docs write', user.permissions.admin && 'admin'].filter(Boolean).join(', ')}</dd>
      </dl>
      <h2>User token</h2>
      <p>A new token replaces the old one at once (scripts using it must be updated).</p>
      <button type="button" onClick={() => window.confirm('Replace your user token now?') && rotate.mutate()}>
        Rotate my user token
      </button>
      <ErrorNote error={rotate.error} />
      {token && (
        <p className="card secret" role="status">
          Your new user token (shown once): <code data-testid="rotated-token">{token}</code> <CopyButton text={token} />
        </p>
      )}
      <h2>Password</h2>
      <form
        aria-label="Change password"
        onSubmit={(e) => {
          e.preventDefault();
          password.mutate();
        }}
      >
        <div className="grid">
          {user.has_password && <Field label="Current password">{(id) => <input id={id} type="password" autoComplete="current-password" value={pw.current} onChange={(e) => setPw({ ...pw, current: e.target.value })} />}</Field>}
          <Field label="New password" hint="8–256 characters">{(id) => <input id={id} type="password" autoComplete="new-password" minLength={8} required value={pw.next} onChange={(e) => setPw({ ...pw, next: e.target.value })} />}</Field>
        </div>
        <ErrorNote error={password.error} />
        <button type="submit">{user.has_password ? 'Change password' : 'Set a password'}</button>
        {password.isSuccess && <span role="status"> Password saved; your other sessions were signed out.</span>}
      </form>
    </section>
  );
}
