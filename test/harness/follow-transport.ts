// A transport for the follow tests, local or over a real sshd, with a slow poll (a wide window
// between two looks at the file) and a scratch directory; all of it started in beforeAll and
// stopped in afterAll of the calling describe.
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from './sshd.js';
import { startControlMaster, type ControlMaster } from './control-master.js';

export interface FollowTransport {
  readonly t: Transport;
  readonly dir: string;
  /** The sshd behind an ssh transport (undefined for local). */
  readonly sshd: SshdHandle | undefined;
}

/** `openssh`: the user's ssh client riding a ControlMaster the harness started (control-master.ts). */
export function useFollowTransport(
  kind: 'local' | 'ssh' | 'openssh',
  prefix: string,
  followPollMs = 300,
): FollowTransport {
  const ctx = {} as { t: Transport; dir: string; sshd: SshdHandle | undefined; master?: ControlMaster };
  beforeAll(async () => {
    ctx.dir = mkdtempSync(join(tmpdir(), `${prefix}${kind}-`));
    if (kind === 'ssh') {
      ctx.sshd = await startSshd();
      ctx.t = await openTransport(ctx.sshd.alias, { sshConfigFile: ctx.sshd.sshConfigFile, followPollMs });
    } else if (kind === 'openssh') {
      ctx.sshd = await startSshd();
      ctx.master = await startControlMaster(ctx.sshd);
      ctx.t = await openTransport(ctx.sshd.alias, { sshConfigFile: ctx.master.sshConfigFile, followPollMs });
    } else ctx.t = await openTransport('local', { followPollMs });
  });
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.master?.stop();
    await ctx.sshd?.stop();
    if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
  });
  return ctx;
}
