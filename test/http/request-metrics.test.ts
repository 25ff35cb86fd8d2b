import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REQUEST_BUCKETS, RequestMetrics } from '../../src/http/request-metrics.ts';

const names = { requests: 'r_total', durations: 'd_seconds' };

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('request metrics', () => {
  it('counts requests by route, method and status, and durations by route and method', () => {
    const metrics = new RequestMetrics(names);
    metrics.record('GET', '/v1/x', 200, 0.0004);
    metrics.record('GET', '/v1/x', 200, 0.001); // on a bound: counted in it
    metrics.record('GET', '/v1/x', 404, 0.03);
    metrics.record('POST', '/v1/x', 201, 7); // past every bound
    metrics.record('GET', '/v1/y', 200, 0.2);
    const text = metrics.render();
    const x = 'route="/v1/x",method="GET"';
    assert.equal(sample(text, `r_total{${x},status="200"}`), 2);
    assert.equal(sample(text, `r_total{${x},status="404"}`), 1);
    assert.equal(sample(text, 'r_total{route="/v1/x",method="POST",status="201"}'), 1);
    assert.equal(sample(text, 'r_total{route="/v1/y",method="GET",status="200"}'), 1);
    // Cumulative buckets, as Prometheus wants them.
    const buckets = REQUEST_BUCKETS.map((b) => sample(text, `d_seconds_bucket{le="${b}",${x}}`));
    assert.deepEqual(buckets, [2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]);
    assert.equal(sample(text, `d_seconds_bucket{le="+Inf",${x}}`), 3);
    assert.equal(sample(text, `d_seconds_count{${x}}`), 3);
    assert.ok(Math.abs(sample(text, `d_seconds_sum{${x}}`)! - 0.0314) < 1e-12);
    const post = 'route="/v1/x",method="POST"';
    assert.equal(sample(text, `d_seconds_bucket{le="2.5",${post}}`), 0);
    assert.equal(sample(text, `d_seconds_bucket{le="+Inf",${post}}`), 1);
    // Each metric is introduced once, before its samples.
    const lines = text.split('\n');
    assert.equal(lines.indexOf('# TYPE r_total counter'), 1);
    assert.ok(
      lines.indexOf('# TYPE d_seconds histogram') >
        lines.map((l) => l.startsWith('r_total')).lastIndexOf(true),
    );
    assert.ok(text.endsWith('\n'));
  });

  it('escapes label values', () => {
    const metrics = new RequestMetrics(names);
    metrics.record('GET', 'a"b\\c\nd', 200, 0.01);
    assert.equal(
      sample(metrics.render(), 'r_total{route="a\\"b\\\\c\\nd",method="GET",status="200"}'),
      1,
    );
  });

  it('has only the headers before any request', () => {
    const text = new RequestMetrics(names).render();
    assert.deepEqual(
      text.split('\n').filter((l) => l !== '' && !l.startsWith('#')),
      [],
    );
  });
});
