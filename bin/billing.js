#!/usr/bin/env node
// The operator tool. Runs the TypeScript sources directly through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
