export * from './config';
export * from './embedded';
