// A Session over plain state: the views' test double and the base the live session builds on.
// `update` merges a patch, bumps the version and notifies; actions are injectable.
import type { Session, SessionActions, SessionState } from './types.js';

export function emptyState(): SessionState {
  return {
    version: 0,
    targets: [],
    selectedRunId: null,
    run: null,
    config: null,
    launch: { phase: 'idle' },
    notice: null,
  };
}

export class StaticSession implements Session {
  private state: SessionState;
  private readonly listeners = new Set<() => void>();
  readonly actions: SessionActions;
  /** Every action call, in order (tests assert on it). */
  readonly calls: { action: keyof SessionActions; args: unknown[] }[] = [];

  constructor(initial: Partial<SessionState> = {}, actions: Partial<SessionActions> = {}) {
    this.state = { ...emptyState(), ...initial };
    const record = <K extends keyof SessionActions>(name: K, fallback: SessionActions[K]): SessionActions[K] =>
      ((...args: unknown[]) => {
        this.calls.push({ action: name, args });
        return (actions[name] ?? (fallback as any))(...args);
      }) as SessionActions[K];
    this.actions = {
      selectRun: record('selectRun', (runId) => this.update({ selectedRunId: runId })),
      refreshRuns: record('refreshRuns', () => {}),
      stopRun: record('stopRun', async () => {}),
      setDraft: record('setDraft', (draft) => {
        if (this.state.config) this.update({ config: { ...this.state.config, draft } });
      }),
      setValue: record('setValue', () => {}),
      addOverride: record('addOverride', () => {}),
      removeOverride: record('removeOverride', () => {}),
      launch: record('launch', async () => {}),
      runPreflight: record('runPreflight', async () => {}),
      checkLeftovers: record('checkLeftovers', async () => {}),
      stopLeftovers: record('stopLeftovers', async () => {}),
      pinBaseline: record('pinBaseline', (runId) =>
        this.update({ baselineRunId: this.state.baselineRunId === runId ? null : runId }),
      ),
    };
  }

  getState(): SessionState {
    return this.state;
  }

  update(patch: Partial<SessionState>): void {
    this.state = { ...this.state, ...patch, version: this.state.version + 1 };
    for (const l of this.listeners) l();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
