import { CliError, EXIT } from './errors.js';

export async function run(_args: string[]): Promise<number> {
  throw new CliError('`config` is not available in this build yet.', EXIT.usage);
}
