/**
 * Bursts of concurrent executions on one key, as a client program sends them: every answer kept,
 * a 503 retried after its Retry-After (a few times) so that each call ends in a definite answer.
 */
export type BurstMode = 'sync' | 'async' | 'stream';

export interface Answer {
  status: number;
  retryAfter: string | null;
  body: string;
}

export interface CallOutcome {
  /** Every answer the call got, 503s before a retry included. */
  answers: Answer[];
  final: Answer;
  /** sync: a completion; stream: an event stream ending with [DONE]; async: the submission's task number. */
  completed: boolean;
  taskNumber?: string;
}

const body = (mode: BurstMode) => JSON.stringify({ messages: [{ role: 'user', content: 'burst' }], ...(mode === 'stream' && { stream: true }) });

async function once(base: string, key: string, mode: BurstMode): Promise<Answer> {
  const res = await fetch(`${base}/v1/agent/demo-agent/${mode === 'async' ? 'async' : 'sync'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body(mode),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

export async function callOnce(base: string, key: string, mode: BurstMode, retries = 8): Promise<CallOutcome> {
  const answers: Answer[] = [];
  for (let attempt = 0; ; attempt++) {
    const a = await once(base, key, mode).catch((err: Error) => ({ status: -1, retryAfter: null, body: `${err} ${String((err as { cause?: unknown }).cause)}` }));
    answers.push(a);
    if (a.status !== 503 || attempt >= retries) break;
    await new Promise((r) => setTimeout(r, Number(a.retryAfter ?? 1) * 1000 * (0.5 + Math.random())));
  }
  const final = answers.at(-1)!;
  let completed = false;
  let taskNumber: string | undefined;
  if (final.status === 200 && mode === 'sync') completed = JSON.parse(final.body).object === 'chat.completion';
  if (final.status === 200 && mode === 'stream') completed = /data: \[DONE\]\n\n$/.test(final.body);
  if (final.status === 200 && mode === 'async') {
    taskNumber = JSON.parse(final.body).task_number;
    completed = typeof taskNumber === 'string';
  }
  return { answers, final, completed, taskNumber };
}

export function burst(base: string, key: string, mode: BurstMode, n: number): Promise<CallOutcome[]> {
  return Promise.all(Array.from({ length: n }, () => callOnce(base, key, mode)));
}

/** Every answer of a burst: 200, or 429/503 with Retry-After and a `{detail}` body; never anything else. */
export function answersOf(outcomes: CallOutcome[]): { ok: number; refused: Answer[]; other: Answer[] } {
  const all = outcomes.flatMap((o) => o.answers);
  return {
    ok: all.filter((a) => a.status === 200).length,
    refused: all.filter((a) => a.status === 429 || a.status === 503),
    other: all.filter((a) => a.status !== 200 && a.status !== 429 && a.status !== 503),
  };
}
