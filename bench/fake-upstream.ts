/**
 * The OpenAI-compatible fake upstream of the passthrough section, in its own process (its CPU is
 * not Tollgate's). Prints its base URL as one JSON line, then serves until stdin closes.
 */
import { startFakeOpenAi } from '../test/support/fake-openai';

startFakeOpenAi().then((fake) => {
  fake.requests.push = () => 0; // a long run keeps no request log
  process.stdout.write(`${JSON.stringify({ baseUrl: fake.baseUrl })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void fake.close().then(() => process.exit(0)));
});
