// The cockpit's screens (the keys are in bindings.ts: one table for dispatch, help and hints).
export const SCREENS = ['runs', 'dashboard', 'config', 'log', 'eval', 'health', 'trajectories'] as const;
export type ScreenId = (typeof SCREENS)[number];
export const SCREEN_TITLES: Record<ScreenId, string> = {
  runs: 'Runs',
  dashboard: 'Dashboard',
  config: 'Config',
  log: 'Log',
  eval: 'Eval',
  health: 'RL health',
  trajectories: 'Episodes',
};
