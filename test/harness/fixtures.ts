// The shared fixtures (real trainer logs, real nvidia-smi output, the paper's reference config),
// vendored under test/fixtures/shared so that a clean clone tests without the workplace's ../shared.
export const SHARED = new URL('../fixtures/shared/', import.meta.url).pathname;
