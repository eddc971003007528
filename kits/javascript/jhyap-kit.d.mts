// TypeScript finds the types of a .mjs module in a .d.mts beside it: they are jhyap-kit.d.ts.
export * from './jhyap-kit.js';
