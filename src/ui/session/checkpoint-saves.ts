// The trainer's checkpoint-save records merged into the parser's records in log order: kept in
// src/runs (checkpoint-saves.ts), where `follow` feeds them to its alerts too.
export { CheckpointSaves } from '../../runs/checkpoint-saves.js';
