import { Agent, fetch as undiciFetch, type RequestInit, type Response } from 'undici';

/** fetch that trusts one certificate (the gateway's self-signed one), as a careful client would. */
export function fetchTrusting(certPem: string): (url: string, init?: RequestInit) => Promise<Response> {
  const dispatcher = new Agent({ connect: { ca: certPem } });
  return (url, init) => undiciFetch(url, { ...init, dispatcher });
}
