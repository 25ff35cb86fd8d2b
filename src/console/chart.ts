// The overview's bar chart, as SVG geometry the template draws (./templates/chart.eta): one bar
// per point on a linear scale from zero to a round maximum, with its grid lines. The scales
// are d3-scale's: a band scale places the bars and a linear one, made "nice", gives the
// heights and the grid's round values.
import { scaleBand, scaleLinear } from 'd3-scale';

export interface ChartBar {
  x: number;
  y: number;
  width: number;
  height: number;
  label: string;
  value: string;
}

export interface Chart {
  width: number;
  height: number;
  bars: ChartBar[];
  grid: { y: number; label: string }[];
  baseline: number;
}

const WIDTH = 720;
const HEIGHT = 260;
const LEFT = 90;
const BOTTOM = 30;
const TOP = 10;
/** Grid lines: about this many steps above zero, at round values. */
const GRID_STEPS = 4;

/** `points`: label, value (minor units) and its text, in order; `format` writes a grid value. */
export function barChart(
  points: readonly { label: string; value: number; text: string }[],
  format: (value: number) => string,
): Chart {
  const highest = Math.max(0, ...points.map((p) => p.value));
  const y = scaleLinear()
    .domain([0, highest > 0 ? highest : 1])
    .range([HEIGHT - BOTTOM, TOP])
    .nice(GRID_STEPS);
  const x = scaleBand()
    .domain(points.map((_, i) => String(i)))
    .range([LEFT, WIDTH])
    .paddingInner(0.3)
    .paddingOuter(0.15);
  return {
    width: WIDTH,
    height: HEIGHT,
    baseline: HEIGHT - BOTTOM,
    bars: points.map((p, i) => ({
      x: x(String(i))!,
      y: y(p.value),
      width: x.bandwidth(),
      height: HEIGHT - BOTTOM - y(p.value),
      label: p.label,
      value: p.text,
    })),
    grid: y.ticks(GRID_STEPS).map((value) => ({ y: y(value), label: format(value) })),
  };
}
