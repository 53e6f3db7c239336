export * from './coalescer';
