export { taskJson, documentJson } from './public-json';
