import type { RequestHandler } from 'express';
import { REQUEST_ID_HEADER, newRequestId, runWithRequestContext } from '@tollgate/kit';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reads (or creates) the request id, echoes it in the response, and makes it current for every gRPC call. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.header(REQUEST_ID_HEADER);
  const id = incoming && acceptable.test(incoming) ? incoming : newRequestId();
  (req as { id?: string }).id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  runWithRequestContext({ requestId: id }, next);
};
