// One GRPO group as webgym's `_dump_trajectory` writes it (webgym-dumps.md): `{task}_ep{i}.json` per
// episode (Python's json.dumps, one line, keys in the trainer's order) and each step's screenshot
// `task_{task}_{instance}_step_{NNN}.png` beside them. Rewards are mixed inside a group (a group of
// equal rewards is dropped by the trainer, never dumped). Pure: files as data; dump-writer.ts writes.
import { PAGE_H, PAGE_W, PAGES_PER_SITE, pageOf } from './dump-pages.js';
import { pyFloat, pyJsonDumps } from './py-json.js';
import { Rng } from './rng.js';
import { WEBSITES } from './websites.js';

export interface DumpedFile {
  /** Relative to the log directory. */
  rel: string;
  bytes: Buffer;
}

export interface GroupInput {
  /** `<fileroot>/logs/<user>/<experiment>/<trial>`. */
  logDir: string;
  subdir: 'rollout' | 'test-rollout';
  tailVersion: number;
  headVersion: number;
  /** Index of the task in the simulator's dataset (its id `sim-train-N`, its website). */
  taskIndex: number;
  nSamples: number;
  seed: number;
}

type Outcome = 'success' | 'wrong' | 'timed-out' | 'blocked' | 'stuck';
/** After a success and a wrong answer (a dumped group never has one reward), each kind a viewer filters on. */
const OUTCOMES: Outcome[] = ['timed-out', 'blocked', 'stuck', 'success', 'wrong', 'success'];
// Qwen3-VL gives an image one token per 32×32 pixels (patch 16, merged 2×2): the simulator's 160×96
// screenshots are 5×3 = 15 pads (a real 1280×768 one is 960, and 960 made every simulated run write
// 1 GB of records and take 50 s more in tests).
const PADS = '<|image_pad|>'.repeat((PAGE_W / 32) * (PAGE_H / 32));
const VISION = `<|vision_start|>${PADS}<|vision_end|>`;

const verdict = (ok: boolean, fact: number) =>
  `[Criterion A - Fact ${fact}] 1. Reasoning: the final page ${ok ? 'shows' : 'does not show'} the requested item.\n2. Verdict: ${ok ? 'SUCCESS' : 'NOT SUCCESS'}`;

function actionFor(last: boolean, outcome: Outcome, target: { x: number; y: number }, k: number) {
  if (last && outcome !== 'timed-out' && outcome !== 'stuck') {
    const content = outcome === 'success' ? 'The cheapest option is $12.99.' : 'I could not find it; $15.49.';
    return { key: 'answer', arguments: { content }, sentence: `Answer the question: ${content}` };
  }
  if (k % 3 === 2) return { key: 'scroll', arguments: { direction: 'down' }, sentence: 'Scroll down to see more.' };
  const coords = [target.x, target.y];
  return {
    key: 'click',
    arguments: { coordinates: coords },
    sentence: `Click the button at (${target.x}, ${target.y}).`,
  };
}

export function dumpGroup(g: GroupInput): DumpedFile[] {
  const rng = Rng.of(g.seed, g.tailVersion, g.taskIndex, 29);
  const site = WEBSITES[g.taskIndex % WEBSITES.length];
  const split = g.subdir === 'rollout' ? 'train' : 'test';
  const taskId = `sim-${split}-${g.taskIndex}`;
  const dir = `${g.subdir}/${g.tailVersion}`;
  const tmp = `${g.logDir}/.screenshots/webgym_workflow_${(rng.int(0, 0xffffff) >>> 0).toString(16).padStart(8, '0')}`;
  const files: DumpedFile[] = [];
  for (let ep = 0; ep < g.nSamples; ep++) {
    const outcome = ep === 0 ? 'success' : ep === 1 ? 'wrong' : OUTCOMES[(ep - 2) % OUTCOMES.length];
    const nSteps = outcome === 'stuck' ? rng.int(4, 6) : rng.int(2, 5);
    const instance = `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-a${hex(rng, 3)}-${hex(rng, 12)}_${rng.int(8000, 8999)}`;
    const shots: string[] = [];
    const steps: Record<string, unknown>[] = [];
    let pageSeed = rng.int(1, 1e9);
    for (let k = 0; k < nSteps; k++) {
      // A new page differs from the one before (a "stuck" episode is the only one that repeats one).
      if (!(outcome === 'stuck' && k >= 1)) {
        const next = rng.int(1, 1e9) % PAGES_PER_SITE;
        pageSeed = next === pageSeed % PAGES_PER_SITE ? next + 1 : next;
      }
      const page = pageOf(g.taskIndex, pageSeed);
      const name = `task_${taskId}_${instance}_step_${String(k).padStart(3, '0')}.png`;
      files.push({ rel: `${dir}/${name}`, bytes: page.png });
      const abs = `${g.logDir}/${dir}/${name}`;
      shots.push(abs);
      const act = actionFor(k === nSteps - 1, outcome, page.target, k);
      const thought = `The page of ${site} shows the results; I should ${act.key}.`;
      const toolCall = JSON.stringify({ name: 'computer_use', arguments: { action: act.key, ...act.arguments } });
      const completion = `Thought: ${thought}\nAction: ${act.sentence}\n<tool_call>\n${toolCall}\n</tool_call><|im_end|>`;
      const prompt = `<|im_start|>system\nYou are a web agent.<|im_end|>\n<|im_start|>user\nTask: Simulated task ${g.taskIndex} on ${site}\n${k > 0 ? VISION : ''}${VISION}<|im_end|>\n<|im_start|>assistant\n`;
      const last = k === nSteps - 1;
      const answered = last && act.key === 'answer';
      steps.push({
        step_idx: k,
        seqlen: 2000 + k * 980,
        prompt_len: 1900 + k * 980,
        head_version: g.headVersion,
        tail_version: g.tailVersion,
        prompt,
        completion,
        observation: { image_path: abs, page_metadata: { width: 1280, height: 768 }, ac_tree: '' },
        action: { action: { key: act.key, arguments: act.arguments }, action_string: act.sentence },
        response: {
          raw_response: completion,
          raw_prompt: JSON.stringify(
            [{ role: 'user', content: [{ type: 'image', image: `file://${tmp}/${name}` }] }],
            null,
            2,
          ),
          answering_tokens: {
            thought,
            action: act.sentence,
            tool_call: toolCall,
            thinking: '',
            observation: '',
            memory: 'Memory: none.',
          },
        },
        reward: {
          reward: 0,
          evaluation: 'In progress',
          is_blocked: false,
          submit: answered,
          submission_judgment: answered ? 'Last step is always included for evaluation' : null,
        },
      });
    }
    const answered = outcome !== 'timed-out' && outcome !== 'stuck';
    const reward = outcome === 'success' ? 1.0 : 0.0;
    const record = {
      task_id: taskId,
      episode_idx: ep,
      n_steps: nSteps,
      reward: pyFloat(reward),
      head_version: g.headVersion,
      tail_version: g.tailVersion,
      screenshot_paths: shots,
      evaluation: answered ? [verdict(outcome === 'success', 1), verdict(outcome === 'success', 2)] : null,
      is_blocked: outcome === 'blocked',
      episode_timed_out: outcome === 'timed-out',
      task_info: {
        task_name: `Simulated task ${g.taskIndex} on ${site}`,
        domain: 'shopping',
        subdomain: 'general',
        website: `https://www.${site}`,
        difficulty: 1 + (g.taskIndex % 9),
        task_id: taskId,
        evaluator_reference: [{ id: 1, description: 'The price is shown', facts: ['$12.99'] }],
        reference_answer: '$12.99',
      },
      steps,
    };
    files.push({ rel: `${dir}/${taskId}_ep${ep}.json`, bytes: Buffer.from(pyJsonDumps(record)) });
  }
  return files;
}

function hex(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += rng.int(0, 15).toString(16);
  return s;
}
