import { useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, call, messageOf, type App } from '../api';
import { workingKey } from '../session';
import { KeyPicker } from '../ui/KeyPicker';
import { CopyButton, Empty, ErrorNote, Field } from '../ui/kit';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

function snippets(origin: string, app: App | undefined, messages: Message[], temperature: number, maxTokens: number) {
  if (!app) return { curl: '', sdk: '' };
  const body = { messages: messages.length ? messages : [{ role: 'user', content: 'Hello' }], stream: true, temperature, max_tokens: maxTokens };
  const url = `${origin}/v1/${app.kind}/${app.app_id}/sync`;
  const curl = `curl -sN ${url} \\\n  -H "authorization: Bearer $TOLLGATE_KEY" \\\n  -H 'content-type: application/json' \\\n  -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`;
  const sdk = `import OpenAI from 'openai';

// The SDK posts to <baseURL>/chat/completions; Tollgate's route for this app is ${url}.
const client = new OpenAI({
  apiKey: process.env.TOLLGATE_KEY,
  baseURL: '${origin}/v1/${app.kind}/${app.app_id}',
  fetch: (url, init) => fetch(String(url).replace(/\\/chat\\/completions$/, '/sync'), init),
});
const stream = await client.chat.completions.create({
  model: '${app.model || 'echo-1'}',
  messages: ${JSON.stringify(body.messages)},
  temperature: ${temperature},
  max_tokens: ${maxTokens},
  stream: true,
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');`;
  return { curl, sdk };
}

export function PlaygroundPage() {
  const [key, setKey] = useState(workingKey.get());
  const apps = useQuery({ queryKey: ['apps', 'all'], queryFn: () => call<{ items: App[] }>('/v1/apps?page_size=100') });
  const [appId, setAppId] = useState('');
  const [temperature, setTemperature] = useState(0.7);
  const [maxTokens, setMaxTokens] = useState(256);
  const [input, setInput] = useState('');
  const [messages, setMessages] = useState<Message[]>([]);
  const [taskNumber, setTaskNumber] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const runnable = (apps.data?.items ?? []).filter((a) => a.provider !== 'external');
  const app = runnable.find((a) => a.app_id === appId) ?? runnable[0];
  const code = useMemo(() => snippets(location.origin, app, messages, temperature, maxTokens), [app, messages, temperature, maxTokens]);

  async function send(e: FormEvent) {
    e.preventDefault();
    if (!app || !input.trim()) return;
    const history: Message[] = [...messages, { role: 'user', content: input.trim() }];
    setMessages([...history, { role: 'assistant', content: '' }]);
    setInput('');
    setError(null);
    setBusy(true);
    abort.current = new AbortController();
    try {
      const res = await fetch(`/v1/${app.kind}/${encodeURIComponent(app.app_id)}/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ messages: history, stream: true, temperature, max_tokens: maxTokens }),
        signal: abort.current.signal,
      });
      if (!res.ok || !res.body) {
        const body: unknown = await res.json().catch(() => ({}));
        const retry = Number(res.headers.get('retry-after')) || undefined;
        throw new ApiError(messageOf(res.status, body, retry), res.status, retry);
      }
      const header = res.headers.get('x-task-number');
      if (header) setTaskNumber(header);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          for (const line of block.split('\n')) {
            if (!line.startsWith('data:')) continue;
            const payload = line.slice(5).trim();
            if (payload === '[DONE]') continue;
            const chunk = JSON.parse(payload) as { task_number?: string; error?: { message?: string }; choices?: Array<{ delta?: { content?: string } }> };
            if (chunk.error) throw new Error(chunk.error.message ?? 'the run failed');
            if (chunk.task_number) setTaskNumber(chunk.task_number);
            const piece = chunk.choices?.[0]?.delta?.content ?? '';
            if (piece) setMessages((m) => [...m.slice(0, -1), { role: 'assistant', content: m[m.length - 1].content + piece }]);
          }
        }
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="pg-title">
      <h1 id="pg-title">Playground</h1>
      <KeyPicker onChange={setKey} />
      <ErrorNote error={apps.error} />
      {runnable.length === 0 && !apps.isPending ? (
        <Empty>No app you may run. An admin can create one under Administration.</Empty>
      ) : (
        <div className="pg">
          <div>
            <div className="filters">
              <Field label="App">
                {(id) => (
                  <select id={id} value={app?.app_id ?? ''} onChange={(e) => setAppId(e.target.value)}>
                    {runnable.map((a) => (
                      <option key={a.app_id} value={a.app_id}>
                        {a.name} ({a.kind}, {a.app_id})
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="Temperature">{(id) => <input id={id} type="number" min={0} max={2} step={0.1} value={temperature} onChange={(e) => setTemperature(Number(e.target.value))} />}</Field>
              <Field label="Max tokens">{(id) => <input id={id} type="number" min={1} max={32768} value={maxTokens} onChange={(e) => setMaxTokens(Number(e.target.value))} />}</Field>
            </div>
            <ol className="chat" aria-live="polite" aria-label="Conversation">
              {messages.map((m, i) => (
                <li key={i} className={m.role} data-testid={`msg-${m.role}`}>
                  <strong>{m.role === 'user' ? 'You' : 'Assistant'}:</strong> {m.content || (busy ? '…' : '')}
                </li>
              ))}
            </ol>
            {taskNumber && (
              <p className="muted">
                Recorded as task <Link to={`/tasks/${encodeURIComponent(taskNumber)}`} data-testid="pg-task">{taskNumber}</Link>, billed to the key in use.
              </p>
            )}
            <ErrorNote error={error} />
            <form onSubmit={send} className="composer" aria-label="Send a message">
              <Field label="Message">{(id) => <textarea id={id} rows={3} value={input} onChange={(e) => setInput(e.target.value)} />}</Field>
              <button type="submit" className="primary" disabled={busy || !key || !app}>
                {busy ? 'Streaming…' : 'Send'}
              </button>{' '}
              {busy && (
                <button type="button" onClick={() => abort.current?.abort()}>
                  Stop
                </button>
              )}{' '}
              <button type="button" onClick={() => { setMessages([]); setTaskNumber(''); }}>
                New conversation
              </button>
              {!key && <p className="hint">Give one of your API keys above: the run is billed to it.</p>}
            </form>
          </div>
          <div>
            <h2>The same call with curl</h2>
            <pre className="code">{code.curl}</pre>
            <CopyButton text={code.curl} label="Copy curl" />
            <h2>With the openai SDK</h2>
            <pre className="code">{code.sdk}</pre>
            <CopyButton text={code.sdk} label="Copy SDK snippet" />
          </div>
        </div>
      )}
    </section>
  );
}
