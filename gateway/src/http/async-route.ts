import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Express 5 forwards rejected promises itself; this only types handlers that return one. */
export const route = (fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>): RequestHandler => fn;
