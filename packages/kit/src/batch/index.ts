export * from './coalescer';
export * from './billing-link';
