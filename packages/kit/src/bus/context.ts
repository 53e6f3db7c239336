import { REQUEST_ID_HEADER, currentRequestId, newRequestId, runWithRequestContext } from '../context';

/** The caller's headers plus the current request id unless one is given. */
export function outgoingHeaders(given: Record<string, string> | undefined): Record<string, string> {
  const headers = { ...given };
  const requestId = currentRequestId();
  if (requestId && !headers[REQUEST_ID_HEADER]) headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}

export function runWithMessageContext<R>(headers: Record<string, string>, fn: () => R): R {
  return runWithRequestContext({ requestId: headers[REQUEST_ID_HEADER] ?? newRequestId() }, fn);
}
