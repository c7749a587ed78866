// Public face of the metrics room (pure: events in, series, figures and alerts out).
export { MetricsStore, STEP_TIME_KEY, type StoreOptions } from './store.js';
export { Series, type SeriesView, type DownsampledView } from './series.js';
export { deriveFigures, median, type Figures, type PhaseShare, type RunConfigFacts } from './derive.js';
export { evaluateAlerts, KEYS as ALERT_KEYS, RULE_SERIES_KEYS, type Alert, type AlertContext } from './alerts.js';
