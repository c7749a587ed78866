#!/usr/bin/env -S -u NODE_EXTRA_CA_CERTS AWRL_NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS} node
// `env -S -u …`: node starts faster without NODE_EXTRA_CA_CERTS, which main.js gives back to the
// processes awrl-tui starts (src/cli/launcher-env.ts says why).
process.env.NODE_ENV ??= 'production'; // React's development build leaks memory over long sessions
await import('../dist/cli/main.js');
