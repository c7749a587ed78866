// What a rule sees: the resolved config, where each key came from, and which env vars are set.
import type { Origin } from '../values.js';

export interface RuleFinding {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  key: string; // the key whose position the finding is reported at
}

export interface RuleContext {
  cfg: Record<string, any>;
  originOf(key: string): Origin;
  envNames: ReadonlySet<string>;
  /** The file + overrides before defaults and interpolation (what the user wrote), when known. */
  written?: Record<string, any>;
}

export type Rule = (ctx: RuleContext) => RuleFinding[];

export const get = (cfg: Record<string, any>, key: string): any =>
  key.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), cfg);
