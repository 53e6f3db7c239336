import { startTestSystem, type TestSystem } from '../support/system';

// The HTTPS rule behind a proxy that terminated TLS: X-Forwarded-Proto counts only when the
// proxy is trusted (TRUST_PROXY); otherwise a plain-HTTP docs request is refused.
describe('docs API behind a TLS-terminating proxy', () => {
  let trusting: TestSystem | null;
  beforeAll(async () => {
    trusting = await startTestSystem({ TRUST_PROXY: 'loopback', HSTS_MAX_AGE_SECONDS: '31536000' });
  });
  afterAll(async () => {
    await trusting?.stop();
  });

  const listDocuments = (base: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/v1/documents`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  it('accepts plain HTTP from a trusted proxy that says https', async () => {
    if (!trusting) return;
    const res = await listDocuments(trusting.http, trusting.adminToken, { 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { code: number }).code).toBe(200);
  });

  it('still refuses plain HTTP when the proxy does not say https', async () => {
    if (!trusting) return;
    const res = await listDocuments(trusting.http, trusting.adminToken, { 'x-forwarded-proto': 'http' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/HTTPS is required/);
  });

  it('sends Strict-Transport-Security on HTTPS answers when configured, never on plain HTTP', async () => {
    if (!trusting) return;
    const direct = await trusting.httpsFetch(`${trusting.https}/api/v1/documents`, { headers: { authorization: `Bearer ${trusting.adminToken}` } });
    expect(direct.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const viaProxy = await listDocuments(trusting.http, trusting.adminToken, { 'x-forwarded-proto': 'https' });
    expect(viaProxy.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const plain = await fetch(`${trusting.http}/healthz`);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });
});
