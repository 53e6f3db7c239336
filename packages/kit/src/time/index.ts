export * from './instants';
