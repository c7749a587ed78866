// The headless commands' first connection: a failure becomes the CLI's one-line error with its exit
// code (2 when retrying cannot help: a refused host key or login; 4 when the host is unreachable).
import { connect, connectExit } from '../runs/cli-target.js';
import type { Target } from '../runs/index.js';
import type { Transport } from '../remote/transport.js';
import { CliError } from './errors.js';

export async function connectOrExit(target: Target, opts: Parameters<typeof connect>[1]): Promise<Transport> {
  try {
    return await connect(target, opts);
  } catch (e) {
    throw new CliError((e as Error).message, connectExit(e));
  }
}
