// The trainer's message texts, as AsyncWebRL prints them (fixture run-a, docs/trainer.md §5). Pure.
import { formatTraceback } from './records.js';
import type { MemorySample, BatchLine } from './dynamics.js';
import type { SimPlan } from './plan.js';

export const f1 = (x: number): string => x.toFixed(1);
export const f2 = (x: number): string => x.toFixed(2);

export function memoryMessage(
  m: Pick<MemorySample, 'allocatedGB' | 'reservedGB' | 'usedGB' | 'totalGB'>,
  phase: string,
): string {
  return (
    `Memory-Usage ${phase}: memory allocated (GB): ${f2(m.allocatedGB)}, memory reserved (GB): ${f2(m.reservedGB)}, ` +
    `device memory used/total (GB): ${f2(m.usedGB)}/${f2(m.totalGB)}`
  );
}

export function batchMessage(b: BatchLine): string {
  return (
    `prepare_batch/rollout: pending_before=${b.pendingBefore}, consumed=${b.consumed}, wait=${f1(b.waitS)}s, ` +
    `localize+concat=${f1(b.concatS)}s, total=${f1(b.totalS)}s, batch_shape=[${b.shape[0]}, ${b.shape[1]}], ` +
    `n_episodes=${b.nEpisodes}, mmi_len=${b.shape[0]}`
  );
}

export function stepDoneMessage(plan: SimPlan, epoch0: number, epochStep0: number, global0: number): string {
  return (
    `Epoch ${epoch0 + 1}/${plan.epochs} Step ${epochStep0 + 1}/${plan.stepsPerEpoch} ` +
    `Train step ${global0 + 1}/${plan.totalSteps} done.`
  );
}

export function stepInfoRepr(epoch: number, epochStep: number, globalStep: number, stepsPerEpoch: number): string {
  return `StepInfo(epoch=${epoch}, epoch_step=${epochStep}, global_step=${globalStep}, steps_per_epoch=${stepsPerEpoch})`;
}

/** `Clean split: …` of the Ray scheduler: whole nodes per role, one placement group per role. */
export function cleanSplitMessage(plan: SimPlan): string {
  const rNodes = Math.ceil(plan.rollout.gpus / plan.gpusPerNode);
  const aNodes = Math.ceil(plan.actor.gpus / plan.gpusPerNode);
  return (
    `Clean split: ${rNodes} inference node(s) + ${aNodes} training node(s): ` +
    `${plan.rollout.name} PACK PG (${plan.rollout.gpus} x 1-GPU), ${plan.actor.name} PACK PG (${plan.actor.gpus} x 1-GPU)`
  );
}

export function ncclTraceback(rank: number): string {
  return formatTraceback(
    [
      ['/opt/webgym/areal/trainer/rl_trainer.py', 412, 'train', 'self._train_step(epoch, step, global_step)'],
      ['/opt/webgym/areal/trainer/rl_trainer.py', 318, '_train_step', 'self.actor.update_weights(weight_update_meta)'],
      [
        '/opt/webgym/areal/engine/fsdp_engine.py',
        655,
        'update_weights',
        'dist.broadcast(tensor, src=0, group=self.weight_update_group)',
      ],
    ],
    `RuntimeError: [Rank ${rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4412, OpType=BROADCAST, ` +
      `NumelIn=1, NumelOut=1, Timeout(ms)=7200000) ran for 7200731 milliseconds before timing out.`,
  );
}

export function oomText(rank: number, triedGiB: number, freeGiB: number): string {
  return (
    `CUDA out of memory. Tried to allocate ${f2(triedGiB)} GiB. GPU ${rank} has a total capacity of 79.11 GiB of which ` +
    `${f2(freeGiB)} GiB is free. Including non-PyTorch memory, this process has ${f2(79.11 - freeGiB)} GiB memory in use. ` +
    `Of the allocated memory 71.02 GiB is allocated by PyTorch, and 3.91 GiB is reserved by PyTorch but unallocated. ` +
    `If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.`
  );
}

export function oomWorkerTraceback(rank: number, triedGiB: number, freeGiB: number): string {
  return formatTraceback(
    [
      ['/opt/webgym/areal/infra/rpc/rpc_server.py', 214, 'call_engine', 'result = method(*args, **kwargs)'],
      ['/opt/webgym/areal/engine/ppo/actor.py', 388, 'ppo_update', 'train_stat = self.engine.train_batch('],
      ['/opt/webgym/areal/engine/fsdp_engine.py', 731, 'train_batch', 'loss.backward()'],
    ],
    `torch.OutOfMemoryError: ${oomText(rank, triedGiB, freeGiB)}`,
  );
}

export function oomControllerTraceback(rank: number, triedGiB: number, freeGiB: number, ray: boolean): string {
  const exc = ray
    ? `ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayRPCServer.call() (pid=48213, ip=10.0.0.9)\n` +
      `torch.OutOfMemoryError: ${oomText(rank, triedGiB, freeGiB)}`
    : `RuntimeError: Worker 'actor/${rank}' failed with exit code 1: torch.OutOfMemoryError: ${oomText(rank, triedGiB, freeGiB)}`;
  return formatTraceback(
    [
      ['/opt/webgym/areal/trainer/rl_trainer.py', 412, 'train', 'self._train_step(epoch, step, global_step)'],
      ['/opt/webgym/areal/trainer/rl_trainer.py', 301, '_train_step', 'stats = self.actor.ppo_update(batch)'],
    ],
    exc,
  );
}

export function episodeTimeoutMessage(task: number, limitMin: number): string {
  return `[EPISODE_TIMEOUT] task=webgym_${task} step=17/20 elapsed=${f1(limitMin + 0.2)}min limit=${limitMin}min — terminating episode`;
}

export function omniboxesAllocMessage(task: number, attempt: number, retries: number): string {
  return (
    `Instance alloc attempt ${attempt}/${retries} failed for task=webgym_${task}: ` +
    `503 Service Unavailable (no free Omniboxes instance), retrying in 10s`
  );
}

/** The controller's exception as Python prints it uncaught, raised again by AsyncWebRL's
 *  RLTrainer.__exit__ (`raise exc_value`) from train.py's `with trainer:` block. */
export function uncaughtTraceback(tb: string): string {
  const [head, ...rest] = tb.split('\n');
  const outer = [
    '  File "/opt/webgym/webgym/train.py", line 214, in <module>',
    '    main()',
    '  File "/opt/webgym/webgym/train.py", line 201, in main',
    '    with trainer:',
    '  File "/opt/webgym/areal/trainer/rl_trainer.py", line 1541, in __exit__',
    '    raise exc_value',
    '  File "/opt/webgym/webgym/train.py", line 203, in main',
    '    trainer.train(workflow, eval_workflow=eval_workflow)',
  ];
  return [head, ...outer, ...rest].join('\n') + '\n';
}
