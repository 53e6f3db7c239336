import { credentials, loadPackageDefinition, type Client, type ServiceError } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';

interface HealthClient extends Client {
  check(req: { service: string }, opts: { deadline: number }, cb: (err: ServiceError | null, res: { status: string }) => void): void;
}

let HealthCtor: (new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => HealthClient) | undefined;

function healthCtor() {
  if (!HealthCtor) {
    const def = protoLoader.loadSync(protoPath, { keepCase: true, enums: String });
    const pkg = loadPackageDefinition(def) as unknown as { grpc: { health: { v1: { Health: typeof HealthCtor } } } };
    HealthCtor = pkg.grpc.health.v1.Health;
  }
  return HealthCtor!;
}

/** Asks a server's standard gRPC health service; resolves true only for SERVING. */
export async function checkGrpcHealth(address: string, timeoutMs = 2_000, service = ''): Promise<boolean> {
  const Ctor = healthCtor();
  const client = new Ctor(address, credentials.createInsecure());
  try {
    return await new Promise<boolean>((resolve) => {
      client.check({ service }, { deadline: Date.now() + timeoutMs }, (err, res) => resolve(!err && res?.status === 'SERVING'));
    });
  } finally {
    client.close();
  }
}
