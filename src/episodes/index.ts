// The episodes room: a run's dumped trajectories as data (webgym-dumps.md). Pure.
export * from './record.js';
export * from './listing.js';
export * from './filters.js';
export * from './steps.js';
export { headBeforeSteps, topLevelKeyAt } from './json-head.js';
export * from './wipe.js';
