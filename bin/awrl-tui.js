#!/usr/bin/env -S -u NODE_EXTRA_CA_CERTS AWRL_NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS} node --v8-pool-size=1
// `env -S -u …`: node starts faster without NODE_EXTRA_CA_CERTS, which main.js gives back to the
// processes awrl-tui starts (src/cli/launcher-env.ts says why).
// `--v8-pool-size=1`: one V8 helper thread (compiler, GC) instead of four. On a 2-vCPU machine the
// four compile a big parse's hot functions in parallel and take the CPU from the main thread,
// which meanwhile runs them unoptimised: `parse --json` of 210 MB took 0.54 s with four, 0.50 s
// with one (test/bench/parse.bench.mjs). A long watch needs no more than one either.
process.env.NODE_ENV ??= 'production'; // React's development build leaks memory over long sessions
await import('../dist/cli/main.js');
