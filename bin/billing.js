#!/usr/bin/env node
// The operator tool: Node 24 runs the TypeScript sources as they are (type stripping).
await import('../src/cli/index.ts');
