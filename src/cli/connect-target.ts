// The headless commands' first connection: a failure becomes the CLI's one-line error with its exit
// code (2 when retrying cannot help: a refused host key or login; 4 when the host is unreachable)
// and a stable code for `--json` (host-key-unknown, host-key-mismatch, auth-failed, …), both from
// the kind the transport gave the failure where it happened (run-errors.ts maps kinds to codes).
import { connect } from '../runs/cli-target.js';
import type { Target } from '../runs/index.js';
import type { Transport } from '../remote/transport.js';
import { cliErrorFromConnect } from './run-errors.js';

export async function connectOrExit(target: Target, opts: Parameters<typeof connect>[1]): Promise<Transport> {
  try {
    return await connect(target, opts);
  } catch (e) {
    throw cliErrorFromConnect(e);
  }
}
