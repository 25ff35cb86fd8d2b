import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { barChart } from '../../src/console/chart.ts';

const points = (values: number[]) =>
  values.map((value, i) => ({ label: `m${i}`, value, text: String(value) }));

describe('the overview chart', () => {
  it('draws one bar a month, heights in proportion, under a round top line', () => {
    const chart = barChart(points([0, 395_080, 100_000, 0, 0, 0, 0, 0, 0, 0, 0, 12_345]), String);
    assert.equal(chart.bars.length, 12);
    const [empty, highest, lower] = chart.bars;
    assert.equal(empty!.height, 0);
    assert.ok(Math.abs(lower!.height / highest!.height - 100_000 / 395_080) < 1e-9);
    const top = Math.max(...chart.grid.map((g) => Number(g.label)));
    assert.ok(top >= 395_080 && top <= 500_000, `the top grid line is ${top}`);
    assert.ok(chart.grid.some((g) => g.label === '0' && g.y === chart.baseline));
    // Bars stand side by side, in order, within the drawing.
    for (let i = 1; i < chart.bars.length; i++) {
      assert.ok(chart.bars[i]!.x >= chart.bars[i - 1]!.x + chart.bars[i - 1]!.width);
    }
    assert.ok(chart.bars.at(-1)!.x + chart.bars.at(-1)!.width <= chart.width);
    assert.ok(highest!.y >= 0 && highest!.y + highest!.height === chart.baseline);
  });

  it('draws a year with nothing invoiced as empty bars on a grid from zero', () => {
    const chart = barChart(points(Array(12).fill(0)), String);
    assert.ok(chart.bars.every((bar) => bar.height === 0));
    assert.equal(chart.grid[0]!.label, '0');
  });
});
