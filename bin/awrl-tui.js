#!/usr/bin/env node
process.env.NODE_ENV ??= 'production'; // React's development build leaks memory over long sessions
await import('../dist/cli/main.js');
