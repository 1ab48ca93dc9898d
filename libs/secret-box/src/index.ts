export * from './secret-box.ts';
export { keyRingField } from './key-ring-field.ts';
export * from './ring-walk.ts';
