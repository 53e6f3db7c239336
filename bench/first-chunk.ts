/**
 * Streamed first-chunk latency, one request at a time, in its own process (its CPU is not
 * Tollgate's). Usage: tsx bench/first-chunk.ts <seconds> http <url> <api-key> <json-body>
 *                 or: tsx bench/first-chunk.ts <seconds> grpc <tasks-address> <ExecuteRequest json>
 * Prints {"ms":[...]}: per request, the time from sending to the first content chunk (for a JSON
 * answer such as the passthrough's, to the body part that carries its `content`), timed to the µs.
 */
import { createGrpcClient } from '@tollgate/kit';
import { ExecuteRequest, TasksClient } from '@tollgate/protos/tasks';

const [seconds, mode, target, a, b] = process.argv.slice(2);
const deadline = performance.now() + Number(seconds) * 1000;

async function http(url: string, key: string, body: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  let first = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    if (!first && /"content":"[^"]/.test(seen)) first = performance.now() - t;
  }
  if (!first) throw new Error(`no content chunk in: ${seen.slice(0, 300)}`);
  return first;
}

async function main(): Promise<void> {
  const ms: number[] = [];
  if (mode === 'http') {
    while (performance.now() < deadline) ms.push(await http(target, a, b));
  } else {
    const client = createGrpcClient(TasksClient, target, { timeoutMs: 30_000 });
    const request = ExecuteRequest.fromPartial(JSON.parse(a));
    while (performance.now() < deadline) {
      const t = performance.now();
      let first = 0;
      for await (const chunk of client.raw.executeStream(request)) {
        if (!first && JSON.stringify(chunk).includes('"content":"')) first = performance.now() - t;
      }
      if (!first) throw new Error('no content chunk from ExecuteStream');
      ms.push(first);
    }
    client.close();
  }
  process.stdout.write(`${JSON.stringify({ ms })}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
void b;
