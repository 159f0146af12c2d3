/**
 * Bar charts as SVG drawn on the server: no script, no library, nothing fetched. The page's
 * Content-Security-Policy allows neither scripts nor style attributes, so colours come from
 * classes in console.css; each day's bar has a `<title>` (a tooltip, and what a screen reader
 * says), and the page shows the same figures as a table beside it.
 */
import { html, type Html } from '../../http/html.js';

export interface ChartSeries {
  readonly name: string;
  /** The class that colours its bars (console.css: `.series-…`). */
  readonly className: string;
  readonly values: readonly number[];
}

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 44;
const BOTTOM = 22;
const TOP = 8;
/** Room for the last day's name, centred under its bar. */
const RIGHT = 18;

/** The smallest "round" number (1, 2 or 5 times a power of ten) at or above `value`. */
export function roundUp(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value)!;
  return step * power;
}

/** Stacked bars, one per label (a day), the series stacked in their order, bottom up. */
export function barChart(title: string, labels: readonly string[], series: readonly ChartSeries[]): Html {
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = roundUp(Math.max(0, ...totals));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, labels.length);
  const barWidth = Math.max(1, slot * 0.7);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const number = (n: number) => n.toLocaleString('en');
  // A middle line where it falls on a whole number (a chart of zeros and ones has none).
  const grid = (Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top]).map(
    (value) =>
      html`<line class="grid-line" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"></line><text class="axis" x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${number(value)}</text>`,
  );
  const bars = labels.map((label, i) => {
    let base = 0;
    const x = LEFT + i * slot + (slot - barWidth) / 2;
    const pieces = series.map((s) => {
      const value = s.values[i] ?? 0;
      const piece =
        value > 0
          ? html`<rect class="${s.className}" x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - y(base + value)).toFixed(1)}"></rect>`
          : '';
      base += value;
      return piece;
    });
    const told = series.map((s) => `${number(s.values[i] ?? 0)} ${s.name}`).join(', ');
    // Every seventh day is named under the axis, counted back from the last (today).
    const named = (labels.length - 1 - i) % 7 === 0;
    return html`<g><title>${label}: ${told}</title><rect class="hit" x="${(LEFT + i * slot).toFixed(1)}" y="${TOP}" width="${slot.toFixed(1)}" height="${plotHeight}"></rect>${pieces}${
      named ? html`<text class="axis" x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${label.slice(5)}</text>` : ''
    }</g>`;
  });
  return html`<figure class="chart"><figcaption>${title}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}">${grid}${bars}</svg>
<p class="legend">${series.map((s) => html`<span><i class="swatch ${s.className}"></i>${s.name}</span>`)}</p></figure>`;
}
