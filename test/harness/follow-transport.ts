// A transport for the follow tests, local or over a real sshd, with a slow poll (a wide window
// between two looks at the file) and a scratch directory; all of it started in beforeAll and
// stopped in afterAll of the calling describe.
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type OpenTransportOptions, type Transport } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from './sshd.js';
import { startControlMaster, type ControlMaster } from './control-master.js';

export interface FollowTransport {
  readonly t: Transport;
  readonly dir: string;
  /** The sshd behind an ssh transport (undefined for local). */
  readonly sshd: SshdHandle | undefined;
}

export interface FollowTransportOptions {
  /** The follower's poll (default 300 ms: a wide window between two looks). */
  followPollMs?: number;
  /** More of the transport's options (the quiet poll, keepalives). */
  transport?: Omit<OpenTransportOptions, 'sshConfigFile' | 'followPollMs'>;
  /** The sshd's extra config, made once the scratch directory exists (e.g. a session PATH in it). */
  sshdConfig?: (dir: string) => string[];
}

/** `openssh`: the user's ssh client riding a ControlMaster the harness started (control-master.ts). */
export function useFollowTransport(
  kind: 'local' | 'ssh' | 'openssh',
  prefix: string,
  options: number | FollowTransportOptions = {},
): FollowTransport {
  const o = typeof options === 'number' ? { followPollMs: options } : options;
  const base = { ...o.transport, followPollMs: o.followPollMs ?? 300 };
  const ctx = {} as { t: Transport; dir: string; sshd: SshdHandle | undefined; master?: ControlMaster };
  beforeAll(async () => {
    ctx.dir = mkdtempSync(join(tmpdir(), `${prefix}${kind}-`));
    if (kind === 'local') {
      ctx.t = await openTransport('local', base);
      return;
    }
    ctx.sshd = await startSshd(o.sshdConfig ? { extraConfig: o.sshdConfig(ctx.dir) } : {});
    if (kind === 'openssh') ctx.master = await startControlMaster(ctx.sshd);
    const sshConfigFile = ctx.master?.sshConfigFile ?? ctx.sshd.sshConfigFile;
    ctx.t = await openTransport(ctx.sshd.alias, { ...base, sshConfigFile });
  });
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.master?.stop();
    await ctx.sshd?.stop();
    if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
  });
  return ctx;
}
