export { clipText, wholeCharacterCut } from './whole-characters';
