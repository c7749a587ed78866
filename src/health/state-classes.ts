// The classes a watch's state is made of (the reader's parser, the store, the rules), by name for
// state-graph.ts: a class missing here makes a snapshot fail (and the attach read the log), never
// restore an object without its methods. test/watch/watch-snapshot.test.ts walks real states.
import { EndRecord } from '../trainer-log/end-record.js';
import { EvalRounds } from '../trainer-log/eval-rounds.js';
import { EventOut } from '../trainer-log/event-out.js';
import { HeaderForms } from '../trainer-log/line-bytes.js';
import { LineCarry } from '../trainer-log/line-carry.js';
import { LogLineReader } from '../trainer-log/log-lines.js';
import { TrainerLogParser } from '../trainer-log/parser.js';
import { StepAssembler } from '../trainer-log/pending-step.js';
import { PrintedStats, StatsShapes } from '../trainer-log/stats-shapes.js';
import { KeyInterner, ValueArena } from '../trainer-log/table-cells.js';
import { TableBuilder } from '../trainer-log/table.js';
import { Writers } from '../trainer-log/writers.js';
import { ErrorAlertTracker } from '../metrics/alert-errors.js';
import { EvalHistory } from '../metrics/eval-history.js';
import { RunSteps } from '../metrics/run-steps.js';
import { Series } from '../metrics/series.js';
import { MetricsStore } from '../metrics/store.js';
import { AlertHistory } from './alert-history.js';
import { DriftTracker, KeyWindows } from './drift.js';
import { HealthMonitor } from './monitor.js';
import { PhaseTracker } from './phases.js';
import { RunAlerts } from './run-alerts.js';
import { RecentWindow } from './window.js';

export const STATE_CLASSES = [
  ...[TrainerLogParser, EventOut, LineCarry, Writers, HeaderForms, StepAssembler, TableBuilder, KeyInterner],
  ...[ValueArena, StatsShapes, PrintedStats, EndRecord, EvalRounds, LogLineReader],
  ...[MetricsStore, Series, EvalHistory, RunSteps, ErrorAlertTracker],
  ...[RunAlerts, HealthMonitor, PhaseTracker, RecentWindow, DriftTracker, KeyWindows, AlertHistory],
] as const;

/** Function fields a state holds that are not state: the parser's callbacks between its parts
 *  (set again by TrainerLogParser.wire) and a stats shape's compiled maker (a cache, made again
 *  when needed). Restored as null; any other function makes a snapshot fail. */
export const REWIRED_FUNCTIONS: ReadonlySet<string> = new Set(['beforeStep', 'onMainError', 'make']);

/** Byte arrays that are scratch space: the parser's line without escapes and line head, the newline
 *  positions of the chunk being read, a step's cell bytes. Nothing is read from them before it is
 *  written again: restored zeroed. */
export const SCRATCH_FIELDS: ReadonlySet<string> = new Set([
  'TrainerLogParser.scratch',
  'TrainerLogParser.head',
  'TrainerLogParser.ends',
  'StepAssembler.scratch',
]);
