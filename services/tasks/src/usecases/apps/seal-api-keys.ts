import { SecretBox, secretKeyFromDataDir, type Logger } from '@tollgate/kit';
import type { AppRepo } from '../../repo/app-repo';

/** The box sealing apps' upstream api_keys: TOLLGATE_SECRET_KEY, or the data folder's key file (made on first start). */
export function appSecretBox(config: { secretKey?: Buffer; previousSecretKeys: Buffer[]; dataDir: string }, log: Logger): SecretBox {
  if (config.secretKey) return new SecretBox(config.secretKey, config.previousSecretKeys);
  const { key, file, created } = secretKeyFromDataDir(config.dataDir);
  if (created) log.warn({ file }, 'secret key created for sealing app api_keys; keep this file (mode 0600) with the database, or set TOLLGATE_SECRET_KEY');
  return new SecretBox(key, config.previousSecretKeys);
}

/**
 * At start: seals the api_keys still stored in plain text (rows from before sealing) or with a
 * previous key (after a rotation). Rows no key opens are reported; reading them fails until the
 * key that sealed them is given in TOLLGATE_SECRET_KEY_PREVIOUS.
 */
export async function sealApiKeys(apps: AppRepo, log: Logger): Promise<void> {
  const { sealed, unreadable } = await apps.resealApiKeys();
  if (sealed > 0) log.info({ sealed }, 'app api_keys sealed with the current secret key');
  if (unreadable.length > 0) log.error({ apps: unreadable.slice(0, 20), count: unreadable.length }, 'app api_keys sealed with an unknown key: set TOLLGATE_SECRET_KEY_PREVIOUS to the key that sealed them (docs/security.md)');
}
