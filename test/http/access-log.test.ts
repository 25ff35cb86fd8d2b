import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { accessLog } from '../../src/http/access-log.ts';

function capture() {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

const actor = { tenantId: 'ten_1', environment: 'test', keyId: 'key_1', scopes: [] };
const request = (over: object = {}) =>
  ({ id: 'req_AbC-1_000001', method: 'GET', actor, ...over }) as unknown as FastifyRequest;
const reply = { statusCode: 200 } as unknown as FastifyReply;
const elapsedMs = 1.26;

describe('access log', () => {
  it('writes the line pino writes for the same fields, field for field', () => {
    const fromPino = capture();
    const app = Fastify({ logger: { level: 'info', stream: fromPino } });
    app.log.info(
      {
        requestId: 'req_AbC-1_000001',
        tenantId: 'ten_1',
        keyId: 'key_1',
        method: 'GET',
        route: '/v1/things/:id',
        status: 200,
        durationMs: 1.3,
      },
      'request',
    );
    const ours = capture();
    accessLog('info', ours)(request(), reply, '/v1/things/:id', elapsedMs);
    const [expected, actual] = [JSON.parse(fromPino.lines[0]!), JSON.parse(ours.lines[0]!)];
    assert.deepEqual(Object.keys(actual), Object.keys(expected));
    assert.ok(Math.abs(actual.time - expected.time) < 1000);
    assert.deepEqual({ ...actual, time: 0 }, { ...expected, time: 0 });
    assert.ok(ours.lines[0]!.endsWith('}\n'));
  });

  it('leaves out the tenant and key of an unauthenticated request, and writes a missing route as null', () => {
    const out = capture();
    const log = accessLog('debug', out);
    log(request({ actor: null }), reply, undefined, elapsedMs);
    const line = JSON.parse(out.lines[0]!);
    assert.equal('tenantId' in line, false);
    assert.equal('keyId' in line, false);
    assert.equal(line.route, null);
  });

  it('escapes what it writes, and keeps each key its own ids', () => {
    const out = capture();
    const log = accessLog('info', out);
    const other = { ...actor, tenantId: 'ten_"2"', keyId: 'key_2' };
    log(request(), reply, '/a"b\\c', elapsedMs);
    log(request({ actor: other }), reply, '/a"b\\c', elapsedMs);
    log(request(), reply, '/a"b\\c', elapsedMs);
    const lines = out.lines.map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.tenantId, l.keyId, l.route]),
      [
        ['ten_1', 'key_1', '/a"b\\c'],
        ['ten_"2"', 'key_2', '/a"b\\c'],
        ['ten_1', 'key_1', '/a"b\\c'],
      ],
    );
  });

  it('writes nothing above the info level', () => {
    const out = capture();
    accessLog('warn', out)(request(), reply, '/x', elapsedMs);
    accessLog('silent', out)(request(), reply, '/x', elapsedMs);
    assert.deepEqual(out.lines, []);
  });
});
