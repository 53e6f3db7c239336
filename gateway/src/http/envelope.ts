import type { Response } from 'express';

/** The docs API's success body: `{code, message, data, timestamp}`. */
export function sendEnvelope(res: Response, data: unknown, { status = 200, message = 'success' } = {}): void {
  res.status(status).json({ code: status, message, data, timestamp: new Date().toISOString() });
}
