/** What an end-to-end test reads back from the gateway: status, headers, raw text, and the JSON if it is JSON. */
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Reads a fetch response into a Reply; a body that is not JSON leaves `body` undefined (tests assert on it). */
export async function readReply(res: { status: number; headers: unknown; text(): Promise<string> }): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers as Headers, body, text };
}
