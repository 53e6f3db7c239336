import { z } from 'zod';
import { envBool, envPort, loadConfig, logLevel } from '@tollgate/kit';
import { providersEnv } from './passthrough/providers';

const address = (port: number) => z.string().min(1).default(`127.0.0.1:${port}`);

export const gatewayConfigSchema = z.object({
  PORT: envPort(8080),
  HTTPS_PORT: envPort(8443),
  HOST: z.string().default('0.0.0.0'),
  TOLLGATE_DATA_DIR: z.string().default('./.tollgate'),
  /** PEM files; when absent a self-signed pair is made in the data folder. */
  TLS_CERT_FILE: z.string().optional(),
  TLS_KEY_FILE: z.string().optional(),
  /** Trust X-Forwarded-Proto from a proxy that terminated TLS (express "trust proxy" value). */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): boolean | number | string => (v === 'false' ? false : v === 'true' ? true : /^\d+$/.test(v) ? Number(v) : v)),
  /** Largest accepted request body, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  /**
   * Largest accepted body of a document create or update (/api/v1/documents…), in bytes: a
   * document at its 500,000-character content limit is up to 3 MB of JSON (\u escapes: 6 bytes a character).
   */
  DOCUMENT_BODY_LIMIT_BYTES: z.coerce.number().int().positive().max(15 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Largest accepted body of POST /api/v1/documents/bulk (up to 1,000 documents), in bytes; must stay under gRPC's 16 MiB message limit. */
  BULK_BODY_LIMIT_BYTES: z.coerce.number().int().positive().max(15 * 1024 * 1024).default(12 * 1024 * 1024),
  /** Docs API requests per user token per hour, by account level (docs/billing.md). */
  DOCS_RATE_LIMIT_FREE: z.coerce.number().int().positive().default(1_000),
  DOCS_RATE_LIMIT_PRO: z.coerce.number().int().positive().default(10_000),
  DOCS_RATE_LIMIT_ENTERPRISE: z.coerce.number().int().positive().default(100_000),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(10_000),
  /** How long a streamed answer waits for a client that reads nothing before disconnecting it (its run then ends as a client that left). */
  SSE_STALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** On stop, how long requests in flight may take to finish before their connections are closed (below Kubernetes' 30 s termination grace). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  /** How long a client may take to send a whole request, headers and body, before a 408 and the connection closed. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
  /** Open client connections of both listeners together; 0 (the default): three quarters of the process's open-files limit, at least 1,024 descriptors kept free. */
  MAX_CONNECTIONS: z.coerce.number().int().min(0).default(0),
  /** Open connections from one client address; a trusted proxy's address (TRUST_PROXY) is not limited. */
  MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().positive().default(2_048),
  KEYS_GRPC_ADDR: address(50051),
  BILLING_GRPC_ADDR: address(50052),
  TASKS_GRPC_ADDR: address(50053),
  DOCS_GRPC_ADDR: address(50054),
  SEARCH_GRPC_ADDR: address(50055),
  NATS_URL: z.string().optional(),
  NATS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
  LOG_LEVEL: logLevel,
  HTTPS_ENABLED: envBool(true),
  /**
   * `Strict-Transport-Security: max-age=<this>` on HTTPS answers; 0 (the default) sends none, as the
   * embedded default's self-signed certificate on 127.0.0.1 wants. Set it under a real name with a trusted certificate.
   */
  HSTS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(63_072_000).default(0),
  /** Upstreams of provider-channel keys' passthrough: JSON `{"<name>": {"base_url", "api_key"?, "timeout_ms"?}}` (docs/passthrough.md). */
  PROVIDERS: providersEnv,
  /** Passthrough: longest silence from an upstream (no response, or no next chunk) before 504, in ms. */
  PASSTHROUGH_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),
  /** Passthrough: how long a settlement waits for the next admission to ride along with before it is sent alone, in ms (0: at once). */
  SETTLE_LINGER_MS: z.coerce.number().int().min(0).max(1_000).default(10),
  /** How often request analytics are sent to the docs service, in ms (new requests show in analytics within this plus a query). */
  ANALYTICS_FLUSH_MS: z.coerce.number().int().min(50).max(50_000).default(5_000),
  /** Request measurements held in memory at most while they cannot be sent. */
  ANALYTICS_BUFFER_MAX: z.coerce.number().int().min(1_000).default(200_000),
  /** Browser origins allowed to call the docs API (CORS), comma separated; empty: none. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean)),
}).refine((c) => !c.TLS_CERT_FILE === !c.TLS_KEY_FILE, {
  message: 'TLS_CERT_FILE and TLS_KEY_FILE go together: set both (the certificate served) or neither (a self-signed one in the data folder)',
  path: ['TLS_KEY_FILE'],
});

export type GatewayConfig = Readonly<z.infer<typeof gatewayConfigSchema>>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
