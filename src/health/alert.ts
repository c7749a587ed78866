// One Alert shape for every rule: the store's rules (src/metrics) and these health rules are rendered
// by the cockpit and printed by `--follow --json` alike.
export type { Alert } from '../metrics/alerts.js';
