import type { Response } from 'express';

/** Which public contract a route speaks: the task API's `{detail}` or the docs API's envelope. */
export type Surface = 'task' | 'docs';

export function setSurface(res: Response, surface: Surface): void {
  res.locals.surface = surface;
}

export function surfaceOf(res: Response): Surface {
  return res.locals.surface === 'docs' ? 'docs' : 'task';
}
