export { searchService } from './service';
export type { SearchConfig } from './config';
