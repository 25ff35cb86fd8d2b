// The overview's bar chart, as SVG geometry the template draws (./templates/chart.eta): twelve
// bars on a linear scale from zero to a round maximum, with four grid lines. Written out
// rather than taken from d3-scale/d3-shape: a bar chart needs one multiplication per bar and
// a "nice" maximum, and a library would add more code than it saves.

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

/** The smallest of 1, 2, 2.5, 5 × 10^n at or above `value` (and 1 for nothing). */
export function niceMaximum(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** `points`: label, value (minor units) and its text, in order; `format` writes a grid value. */
export function barChart(
  points: readonly { label: string; value: number; text: string }[],
  format: (value: number) => string,
): Chart {
  const max = niceMaximum(Math.max(0, ...points.map((p) => p.value)));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, points.length);
  const scale = (value: number) => (value / max) * plotHeight;
  return {
    width: WIDTH,
    height: HEIGHT,
    baseline: HEIGHT - BOTTOM,
    bars: points.map((p, i) => ({
      x: LEFT + i * slot + slot * 0.15,
      y: HEIGHT - BOTTOM - scale(p.value),
      width: slot * 0.7,
      height: scale(p.value),
      label: p.label,
      value: p.text,
    })),
    grid: [0, 1, 2, 3, 4].map((i) => ({
      y: HEIGHT - BOTTOM - (plotHeight * i) / 4,
      label: format((max * i) / 4),
    })),
  };
}
