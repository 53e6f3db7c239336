import { useState, type FormEvent } from 'react';
import { call, data, type User } from '../api';
import { useSession } from '../session';
import { ErrorNote, Field } from '../ui/kit';

export function SignIn() {
  const { signedIn } = useSession();
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = mode === 'password' ? { email, password } : { token };
      const s = await data(call<{ data: { user: User; csrf_token: string } }>('/api/v1/session', { json: body }));
      signedIn(s.user, s.csrf_token);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="centered" id="main">
      <form className="card signin" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Tollgate</h1>
        <fieldset className="tabs">
          <legend>Sign in with</legend>
          <label>
            <input type="radio" name="mode" checked={mode === 'password'} onChange={() => setMode('password')} /> Email and password
          </label>
          <label>
            <input type="radio" name="mode" checked={mode === 'token'} onChange={() => setMode('token')} /> User token
          </label>
        </fieldset>
        {mode === 'password' ? (
          <>
            <Field label="Email">{(id) => <input id={id} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
            <Field label="Password">{(id) => <input id={id} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
          </>
        ) : (
          <Field label="User token" hint="The tg-… token an admin gave you (or from the admin-token file).">
            {(id) => <input id={id} type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} />}
          </Field>
        )}
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
