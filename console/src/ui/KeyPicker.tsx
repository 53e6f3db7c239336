import { useState } from 'react';
import { workingKey } from '../session';
import { Field } from './kit';

/**
 * Execution and task management are API-key routes: the person gives the secret of one of their
 * keys; it stays in this browser tab (sessionStorage). Every run is billed to that key.
 */
export function KeyPicker({ onChange }: { onChange: (key: string) => void }) {
  const [value, setValue] = useState(workingKey.get());
  const current = workingKey.get();
  return (
    <form
      className="keypicker"
      aria-label="API key for this page"
      onSubmit={(e) => {
        e.preventDefault();
        workingKey.set(value.trim());
        onChange(value.trim());
      }}
    >
      <Field label="API key secret" hint={current ? `Using ${current.slice(0, 11)}… (kept in this tab only)` : 'ak-… — from API keys (shown once when created); kept in this tab only'}>
        {(id) => <input id={id} type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />}
      </Field>
      <button type="submit">Use this key</button>
    </form>
  );
}
