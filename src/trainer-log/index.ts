// Public face of the trainer-log room (pure: callers pass bytes, get events).
export type * from './events.js';
export { TrainerLogParser, parseLogBytes, MAX_WRITERS, type ParserOptions } from './parser.js';
export { eventFromJsonLine, statsFromJson, statJsonValue, nonFiniteText, JsonSink } from './json.js';
export { eventToJsonLine, writeEventJson } from './event-json.js';
export { stepColumns, stepValue, type StatsColumns } from './stats-shapes.js';
export { stripAnsi, toIsoTime, isoTimeToMs, naiveTimeMs, parseNumber } from './text.js';
export { JsonLinesParser } from './json-lines.js';
export { TrainerLogReader, type ReaderEvent, type ReadResult, type ReaderOptions } from './reader.js';
export { LogLineReader, cleanLine, headerLevel, type LogLine, type LogLineLevel } from './log-lines.js';
export type { CheckpointSaveEvent } from './saves.js';
export { stepDoneLine } from './step-line.js';
export { wandbEvent } from './wandb-lines.js';
