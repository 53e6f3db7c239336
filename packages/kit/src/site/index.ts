export * from './config-sections';
export * from './activity';
