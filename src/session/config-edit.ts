// The Config screen's config as the user edits it: the committed overrides, a draft being typed,
// and the evaluation both give (rows, diagnostics, diff, argv). Kept apart from the launch because
// editing runs on every keystroke pause, launching once; the launch reads the committed config
// from here.
import { evaluateConfig, type ConfigEvaluation } from '../config/index.js';
import { buildConfigView, overrideKey, typedValueText, withValue, type ConfigSource } from './config-view.js';
import { setEnvNames, type LiveSessionOptions, type TargetConnection } from './live-options.js';
import type { ConfigRow, SessionState } from './types.js';

export interface ConfigEditorOptions {
  config: NonNullable<LiveSessionOptions['config']>;
  env: Record<string, string | undefined>;
  /** The target launches go to (its name, workdir and python shape the evaluation). */
  target: TargetConnection | undefined;
  update(patch: Partial<SessionState>): void;
  state(): SessionState;
}

export class ConfigEditor {
  private src: ConfigSource;
  private rowTypes = new Map<string, ConfigRow['type']>();
  private committedEv: { src: ConfigSource; ev: ConfigEvaluation } | null = null;
  // An evaluation takes ~0.1-0.3 s: evaluate a draft once typing pauses, not per keystroke.
  private draftTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: ConfigEditorOptions) {
    const { config, env, target } = o;
    this.src = {
      fileName: config.fileName,
      text: config.text,
      overrides: config.overrides ?? [],
      envNames: new Set(setEnvNames(env)),
      target: target?.target.name ?? null,
      targetBackend: target ? target.target.backend : null,
      remoteConfigPath: `${target?.target.workdir ?? '.'}/.awrl/runs/<run-id>/config.yaml`,
      python: target?.target.python,
      forward: { add: target?.target.forwardEnv ?? [], drop: target?.target.noForwardEnv ?? [] },
    };
    this.evaluate(null);
  }

  get source(): ConfigSource {
    return this.src;
  }

  /** The committed config, evaluated once per change of it (what a launch sends; the pre-flight
   *  of the confirmation and the launch after it share one evaluation). */
  committed(): ConfigEvaluation {
    const src = this.src;
    if (this.committedEv?.src !== src)
      this.committedEv = {
        src,
        ev: evaluateConfig({
          fileName: src.fileName,
          text: src.text,
          overrides: src.overrides,
          envNames: src.envNames,
        }),
      };
    return this.committedEv.ev;
  }

  setDraft(d: { key: string; text: string } | null): void {
    this.clearDraftTimer();
    if (d === null) {
      if (this.o.state().config?.draft) this.evaluate(null);
      return;
    }
    this.draftTimer = setTimeout(() => {
      this.draftTimer = null;
      this.evaluate(d);
    }, 150);
  }

  /** `key=text` as an override, typed as the key was before any override (a string stays quoted). */
  setValue(key: string, text: string): void {
    this.setOverrides(withValue(this.src.overrides, key, typedValueText(this.rowTypes.get(key) ?? 'other', text)));
  }

  /** A new override replaces the one on the same key. */
  addOverride(text: string): void {
    this.setOverrides([...this.src.overrides.filter((x) => overrideKey(x) !== overrideKey(text)), text]);
  }

  /** Remove the override at `index` (1-based, as listed). */
  removeOverride(index: number): void {
    this.setOverrides(this.src.overrides.filter((_, i) => i !== index - 1));
  }

  close(): void {
    this.clearDraftTimer();
  }

  private setOverrides(overrides: string[]): void {
    this.clearDraftTimer();
    this.src = { ...this.src, overrides };
    this.evaluate(null);
  }

  private clearDraftTimer(): void {
    if (this.draftTimer) clearTimeout(this.draftTimer);
    this.draftTimer = null;
  }

  private evaluate(draft: { key: string; text: string } | null): void {
    const { view } = buildConfigView(this.src, draft, this.rowTypes);
    // Types come from the committed config only: a draft of the wrong type must not retype the key.
    // Nor may a committed override of the wrong type: a key keeps the type it had before any
    // override set it (seed=abc then seed=7 must give an int 7 again, not the string '7').
    if (!draft) {
      const before = this.rowTypes;
      this.rowTypes = new Map(
        view.rows.map((r) => [r.key, (r.origin.startsWith('override') && before.get(r.key)) || r.type]),
      );
    }
    this.o.update({ config: view });
  }
}
