import { actorRules } from './actor.js';
import { allocationRules } from './allocation.js';
import type { RuleContext, RuleFinding } from './context.js';
import { dataRules } from './data.js';
import { finiteRules } from './finite.js';
import { inferenceRules } from './inference.js';
import { postInitRules } from './post-init.js';
import { runtimeRules } from './runtime.js';
import { secretRules } from './secrets.js';

export type { RuleContext, RuleFinding } from './context.js';

export const RULES = [
  allocationRules,
  dataRules,
  actorRules,
  inferenceRules,
  runtimeRules,
  secretRules,
  postInitRules,
  finiteRules,
];

export function runRules(ctx: RuleContext): RuleFinding[] {
  return RULES.flatMap((r) => r(ctx));
}
