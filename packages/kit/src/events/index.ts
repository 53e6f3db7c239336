export * from './task-status';
export * from './documents';
export * from './keys';
