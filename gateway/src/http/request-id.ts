import type { RequestHandler, Response } from 'express';
import { REQUEST_ID_HEADER, newRequestId, type CallSettings } from '@tollgate/kit';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reads (or creates) the request id and echoes it in the response; `rpcFor(res)` hands it to each gRPC call. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.header(REQUEST_ID_HEADER);
  const id = incoming && acceptable.test(incoming) ? incoming : newRequestId();
  (req as { id?: string }).id = id;
  res.locals[RPC] = { requestId: id } satisfies CallSettings;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
};

const RPC = 'rpc';

/** Settings of a gRPC call made for this response's request (one object per request; never mutate it): the callee logs under the same request id. */
export function rpcFor(res: Response): CallSettings {
  return (res.locals[RPC] as CallSettings | undefined) ?? {};
}
