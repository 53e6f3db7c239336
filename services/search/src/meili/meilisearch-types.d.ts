// The client is ESM-only with "exports" alone; the workspace's node10 resolution reads no
// "exports", so its types are pointed at here (Node 20.19+ loads the module itself).
declare module 'meilisearch' {
  export * from 'meilisearch/dist/index';
}
