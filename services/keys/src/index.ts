export { keysService } from './service';
export type { KeysConfig } from './config';
