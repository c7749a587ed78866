// The launcher (bin/awrl-tui.js) starts node through `env -S -u NODE_EXTRA_CA_CERTS
// AWRL_NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS} node`: Node 20 parses that variable's whole CA
// bundle while it starts (40-60 ms on the 2-vCPU machines measured, a third of its start-up),
// and awrl-tui itself opens no TLS connection. Here the variable is given back, so the
// processes awrl-tui starts (ssh, the simulator, a local trainer) see the environment the user
// set. Setting it now does not make node load the bundle.

export const HIDDEN_CA_CERTS = 'AWRL_NODE_EXTRA_CA_CERTS';

/** Moves AWRL_NODE_EXTRA_CA_CERTS back to NODE_EXTRA_CA_CERTS (an empty value: it was unset). */
export function giveBackCaCerts(env: NodeJS.ProcessEnv): void {
  const hidden = env[HIDDEN_CA_CERTS];
  if (hidden === undefined) return;
  delete env[HIDDEN_CA_CERTS];
  if (hidden !== '') env.NODE_EXTRA_CA_CERTS = hidden;
}
