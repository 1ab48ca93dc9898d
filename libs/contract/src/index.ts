export * from './enums.ts';
export * from './resources.ts';
export * from './requests.ts';
