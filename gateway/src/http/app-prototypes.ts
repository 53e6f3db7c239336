import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * The request and response classes for the gateway's servers: their instances are born with the
 * app's own prototypes (`app.request`, `app.response`). Express sets those prototypes on every
 * request with `Object.setPrototypeOf`; changing an object's prototype makes V8 keep the request's
 * young objects alive through the next young-generation collections (measured: 48 % of what a bare
 * Express handler allocates survived each one, 3.3 ms pauses, 8,900 requests/s; born with the
 * right prototype, Express's call is a no-op: 0.1 %, 0.55 ms, 22,400 requests/s). docs/benchmarks.md.
 */
export function appMessageClasses(app: Express): MessageClasses {
  function AppRequest(socket: Socket): IncomingMessage {
    return Reflect.construct(IncomingMessage, [socket], AppRequest) as IncomingMessage;
  }
  AppRequest.prototype = app.request;
  function AppResponse(req: IncomingMessage, options?: object): ServerResponse {
    return Reflect.construct(ServerResponse, [req, options], AppResponse) as ServerResponse;
  }
  AppResponse.prototype = app.response;
  return { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}
