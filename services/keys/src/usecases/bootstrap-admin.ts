import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminPermissions, permissionsToJson } from '../domain/account-rules';
import { newUserToken, sha256Hex } from '../domain/secrets';
import type { KeysContext } from './context';

export const ADMIN_TOKEN_FILE = 'admin-token';

/**
 * Makes sure the bootstrap admin exists. With `adminToken` its token is (re)set to it on every
 * start. Without, a token is generated only when the admin is first created: logged once and
 * written to `<dataDir>/admin-token`; later starts keep the existing token. Concurrent starts
 * create one admin (unique system_role).
 */
export async function bootstrapAdmin(ctx: KeysContext, opts: { adminToken?: string; dataDir: string }): Promise<void> {
  const base = { name: 'admin', email: null, level: 'enterprise', permissions: permissionsToJson(adminPermissions()), validUntil: null };
  if (opts.adminToken) {
    const { inserted } = await ctx.accounts.ensureBootstrap({ ...base, tokenHash: sha256Hex(opts.adminToken), tokenPrefix: opts.adminToken.slice(0, 7) }, true);
    ctx.log.info(inserted ? 'bootstrap admin created with the token from TOLLGATE_ADMIN_TOKEN' : 'bootstrap admin token set from TOLLGATE_ADMIN_TOKEN');
    return;
  }
  if (await ctx.accounts.findBootstrap()) {
    ctx.log.info('bootstrap admin exists; its token is unchanged (set TOLLGATE_ADMIN_TOKEN to replace it)');
    return;
  }
  const token = newUserToken();
  const { inserted } = await ctx.accounts.ensureBootstrap({ ...base, tokenHash: sha256Hex(token), tokenPrefix: token.slice(0, 7) }, false);
  if (!inserted) return;
  const file = join(resolve(opts.dataDir), ADMIN_TOKEN_FILE);
  mkdirSync(resolve(opts.dataDir), { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  ctx.log.warn({ file }, `bootstrap admin created; its token (shown only this once, also written to the file): ${token}`);
}
