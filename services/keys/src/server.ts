import { implement, type Logger } from '@tollgate/kit';
import { KeysService } from '@tollgate/protos/keys';
import type { KeysContext } from './usecases/context';
import { authenticateKey } from './usecases/authenticate-key';
import { authenticateUser } from './usecases/authenticate-user';
import { createKey } from './usecases/create-key';
import { listKeys } from './usecases/list-keys';
import { updateKey } from './usecases/update-key';
import { deleteKey } from './usecases/delete-key';
import { createAccount } from './usecases/create-account';
import { getAccount, listAccounts } from './usecases/read-accounts';
import { updateAccount } from './usecases/update-account';
import { deleteAccount } from './usecases/delete-account';
import { authenticateSession, signIn, signOut } from './usecases/sessions';
import { rotateToken, setPassword } from './usecases/credentials';

/** The Keys gRPC service: each handler decodes, calls its use case, encodes. */
export function keysServer(ctx: KeysContext, log: Logger) {
  return {
    definition: KeysService,
    implementation: implement(
      KeysService,
      {
        authenticateKey: (req) => authenticateKey(ctx, req),
        authenticateUser: (req) => authenticateUser(ctx, req.token),
        createKey: (req) => createKey(ctx, req),
        listKeys: (req) => listKeys(ctx, req),
        updateKey: (req) => updateKey(ctx, req),
        deleteKey: (req) => deleteKey(ctx, req),
        createAccount: (req) => createAccount(ctx, req),
        listAccounts: (req) => listAccounts(ctx, req),
        getAccount: (req) => getAccount(ctx, req),
        updateAccount: (req) => updateAccount(ctx, req),
        deleteAccount: (req) => deleteAccount(ctx, req),
        signIn: (req) => signIn(ctx, req),
        authenticateSession: (req) => authenticateSession(ctx, req.sessionToken),
        signOut: (req) => signOut(ctx, req.sessionToken),
        setPassword: (req) => setPassword(ctx, req),
        rotateToken: (req) => rotateToken(ctx, req),
      },
      log,
    ),
  };
}
