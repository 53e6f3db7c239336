export { docsService } from './service';
export type { DocsConfig } from './config';
