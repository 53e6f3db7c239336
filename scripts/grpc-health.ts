import { checkGrpcHealth } from '@tollgate/kit/src/grpc/health-client';

/**
 * Container health probe: exits 0 when the gRPC server answers SERVING on the standard health
 * service. Usage: `node --import tsx scripts/grpc-health.ts [host:port]` (default 127.0.0.1:$GRPC_PORT).
 */
const address = process.argv[2] ?? `127.0.0.1:${process.env.GRPC_PORT ?? ''}`;
if (!/^[^:]+:\d+$/.test(address)) {
  console.error(`grpc-health: need host:port, got "${address}"`);
  process.exit(2);
}
checkGrpcHealth(address, 3_000).then(
  (serving) => {
    if (!serving) console.error(`grpc-health: ${address} is not SERVING`);
    process.exit(serving ? 0 : 1);
  },
  (err: unknown) => {
    console.error(`grpc-health: ${String(err)}`);
    process.exit(1);
  },
);
