// Run-health rules (pure): what fails late in a long AsyncWebRL run, caught from its log events.
export type { Alert } from './alert.js';
export { HealthMonitor, evaluateHealth, type HealthContext } from './monitor.js';
export { PhaseTracker, PHASES, PHASE_LABEL, type Phase, type CurrentPhase, type HealthEvent } from './phases.js';
export type { CheckpointSaveEvent } from '../trainer-log/index.js';
export { STALL_FACTOR, STALL_FLOOR_S } from './stall.js';
export { DRIFT_WINDOW, DRIFT_FACTOR, DRIFT_FLOOR_S } from './drift.js';
export { formatDuration, naiveMs, toNaiveMs } from './time.js';
export { HealthFeed } from './feed.js';
export { AlertHistory, alertHistoryKey, ALERT_HISTORY_CAP, type AlertHistoryEntry } from './alert-history.js';
export { RunAlerts, isHangAlert, type RunAlertsOptions } from './run-alerts.js';
export { encodeGraph, decodeGraph, adoptState, classRegistry, GraphError, type EncodedGraph } from './state-graph.js';
export { STATE_CLASSES, REWIRED_FUNCTIONS, SCRATCH_FIELDS } from './state-classes.js';
