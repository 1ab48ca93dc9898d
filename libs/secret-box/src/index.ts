export * from './secret-box.ts';
export { keyRingField } from './key-ring-field.ts';
