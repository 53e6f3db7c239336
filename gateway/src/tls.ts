import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Logger } from '@tollgate/kit';

export interface TlsMaterial {
  cert: string;
  key: string;
  certFile: string;
}

/** A configured PEM file's text; a file that cannot be read names its variable. */
function readPem(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${variable} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Certificate and key from the configured files (both, or neither: config.ts), or a self-signed pair kept in the data folder. */
export async function loadTlsMaterial(options: { certFile?: string; keyFile?: string; dataDir: string; log: Logger }): Promise<TlsMaterial> {
  if (options.certFile && options.keyFile) {
    return { cert: readPem('TLS_CERT_FILE', options.certFile), key: readPem('TLS_KEY_FILE', options.keyFile), certFile: options.certFile };
  }
  const dir = join(options.dataDir, 'tls');
  const certFile = join(dir, 'gateway-cert.pem');
  const keyFile = join(dir, 'gateway-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true });
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
    } as never);
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    options.log.info({ certFile }, 'generated a self-signed TLS certificate');
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}
