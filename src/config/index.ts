// Public API of the config engine (pure: text in, typed config + diagnostics out).
export { evaluateConfig, type ConfigEvaluation, type ConfigInput, type KeyOrigin } from './evaluate.js';
export { formatDiagnostic, maskOverride, type Diagnostic } from './diagnostics.js';
export { formatOverrideValue, formatTypedValue, hydraQuote } from './format-value.js';
export { requiredSecretNames, type SecretNeed } from './secrets.js';
export { parseAllocationMode, type AllocationComponent, type AllocationParse } from './allocation-mode.js';
export { inferExperimentName, resolveExperimentName } from './experiment-name.js';
export { parseOverride, OverrideSyntaxError, type ParsedOverride } from './overrides-grammar.js';
export { diffConfigs, formatChange, type ConfigChange } from './diff.js';
export { PyFloat, pyFloatRepr, toTyped, type Val } from './values.js';
export { resolveWithoutSchema, type GenericResult } from './generic.js';
export { looksLikeHubId } from './rules/actor.js';
export { REDACTED, isSecretKey, secretEnvNames, redactPlain } from './secret-keys.js';
export { NAME_MAX_BYTES, pathNameProblem, wandbIdNameProblem } from './path-names.js';
export { typedJson } from './json-out.js';
