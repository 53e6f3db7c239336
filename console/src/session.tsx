import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
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
  const queries = useQueryClient();

  useEffect(() => {
    // What this tab shows belongs to one user: another session (signed in again elsewhere) starts afresh.
    const read = () =>
      data(call<{ data: { user: User; csrf_token: string } }>('/api/v1/session'))
        .then((s) => {
          setCsrfToken(s.csrf_token);
          setUser((was) => {
            if (was && was.id !== s.user.id) queries.clear();
            return s.user;
          });
        })
        .catch(() => {
          queries.clear();
          setUser(null);
        })
        .finally(() => setLoading(false));
    void read();
    const lost = () => {
      queries.clear();
      setUser(null);
    };
    const changed = () => void read();
    window.addEventListener('tollgate:signed-out', lost);
    window.addEventListener('tollgate:session-changed', changed);
    return () => {
      window.removeEventListener('tollgate:signed-out', lost);
      window.removeEventListener('tollgate:session-changed', changed);
    };
  }, [queries]);

  const signedIn = useCallback(
    (u: User, csrf: string) => {
      queries.clear();
      setCsrfToken(csrf);
      setUser(u);
    },
    [queries],
  );

  const signOut = useCallback(async () => {
    await call('/api/v1/session', { method: 'DELETE' }).catch(() => undefined);
    setCsrfToken('');
    sessionStorage.clear();
    queries.clear();
    setUser(null);
  }, [queries]);

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
