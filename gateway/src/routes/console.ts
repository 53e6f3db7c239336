import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';
import { AppError } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import { sendError } from '../http/errors';

/** Where `pnpm --filter @tollgate/console build` writes the console (CONSOLE_DIR overrides, for tests). */
export const CONSOLE_DIST = path.resolve(__dirname, '..', '..', '..', 'console', 'dist');

const POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

function wantsHtml(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  return /\btext\/html\b/.test(accept);
}

/**
 * The web console: static files under `/console` (hashed assets cached for a year, the page itself
 * revalidated), on HTTPS (plain HTTP is redirected, the session cookie being Secure); a browser
 * asking for `/` is sent there, API clients keep their JSON 404.
 */
export function consoleRoutes(deps: GatewayDeps, dist = CONSOLE_DIST): Router {
  const router = Router();
  const httpsBase = (req: Request) => (req.secure || !deps.config.HTTPS_ENABLED ? '' : `https://${req.hostname}:${deps.httpsPort ?? deps.config.HTTPS_PORT}`);

  router.get('/', (req, res, next) => (wantsHtml(req) ? res.redirect(302, `${httpsBase(req)}/console/`) : next()));

  router.use('/console', (req, res, next) => {
    const base = httpsBase(req);
    if (base !== '') return res.redirect(302, `${base}${req.originalUrl}`);
    res.setHeader('Content-Security-Policy', POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.use('/console/assets', express.static(path.join(dist, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use('/console/assets', (req, res) => sendError(res, AppError.notFound(`no console asset ${req.path}`)));
  router.use('/console', express.static(dist, { index: false, maxAge: '1h', fallthrough: true }));
  const page = (_req: Request, res: Response) => {
    const index = path.join(dist, 'index.html');
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send('The console is not built yet: run `pnpm --filter @tollgate/console build` (pnpm install does it).');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  };
  router.get('/console', page);
  router.get('/console/{*rest}', page);
  return router;
}
