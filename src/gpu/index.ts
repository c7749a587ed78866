export * from './nvidia-smi.js';
export * from './poller.js';
export * from './scope.js';
