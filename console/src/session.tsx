import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { call, data, setCsrfToken, type User } from './api';

interface SessionState {
  user: User | null;
  loading: boolean;
  signedIn(user: User, csrf: string): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    data(call<{ data: { user: User; csrf_token: string } }>('/api/v1/session'))
      .then((s) => {
        setCsrfToken(s.csrf_token);
        setUser(s.user);
      })
      .catch(() => setUser(null))
      .finally(() => setLoading(false));
    const lost = () => setUser(null);
    window.addEventListener('tollgate:signed-out', lost);
    return () => window.removeEventListener('tollgate:signed-out', lost);
  }, []);

  const signedIn = useCallback((u: User, csrf: string) => {
    setCsrfToken(csrf);
    setUser(u);
  }, []);

  const signOut = useCallback(async () => {
    await call('/api/v1/session', { method: 'DELETE' }).catch(() => undefined);
    setCsrfToken('');
    sessionStorage.clear();
    setUser(null);
  }, []);

  return <SessionContext.Provider value={{ user, loading, signedIn, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/**
 * The API key the console runs tasks with (Tasks, Playground): execution and task management are
 * API-key routes, so the person picks one of their keys and gives its secret, which stays in this
 * tab only (sessionStorage), never on the server.
 */
const KEY_SLOT = 'tollgate.working-key';
export const workingKey = {
  get: (): string => sessionStorage.getItem(KEY_SLOT) ?? '',
  set: (secret: string) => (secret ? sessionStorage.setItem(KEY_SLOT, secret) : sessionStorage.removeItem(KEY_SLOT)),
};
