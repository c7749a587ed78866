// The alert shape the cockpit renders. Identical to src/metrics' Alert (structural typing keeps the two
// interchangeable); declared here so this pure room does not wait on, or import, the store.
export interface Alert {
  id: string;
  severity: 'error' | 'warning' | 'info';
  title: string;
  detail: string;
  advice: string;
  /** The global (1-based) step the alert is about: usually the step in progress. */
  step?: number;
  /** ISO 8601 without zone, like event times. */
  time?: string;
}
