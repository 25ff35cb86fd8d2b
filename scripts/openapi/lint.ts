// `npm run lint:openapi`: writes the OpenAPI document the server serves to
// ./data/openapi.json (built from buildApp, no database or port needed) and lints it with
// Redocly CLI (recommended rules, .redocly.yaml) and Spectral (spectral:oas, .spectral.yaml).
// Any error or warning fails; a rule is switched off only in those files, with its reason.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { buildOpenApiDocument } from './document.ts';

const OUT = 'data/openapi.json';

const document = await buildOpenApiDocument();
const text = `${JSON.stringify(document, null, 2)}\n`;
await mkdir('data', { recursive: true });
await writeFile(OUT, text);
console.log(`${OUT}: ${Buffer.byteLength(JSON.stringify(document))} bytes (compact JSON)`);

function run(command: string, args: string[]): number {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    // No telemetry or update checks: CI reaches no network but the package registries.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  return result.status ?? 1;
}

const failures = [
  run('redocly', ['lint', '--config', '.redocly.yaml', '--max-problems', '200', OUT]),
  run('spectral', ['lint', '--ruleset', '.spectral.yaml', '--fail-severity', 'hint', OUT]),
].filter((status) => status !== 0).length;
process.exit(failures === 0 ? 0 : 1);
