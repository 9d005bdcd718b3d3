import { describe, expect, it } from 'vitest';
import * as echarts from 'echarts';
import type { CgmSummary } from '@trialpulse/shared/device-data/cgm';
import { chartSummary, chartTable } from '@/components/charts/chart-data';
import { agpChartOption, agpDataOption } from './cgm-charts';

const bin = (minute: number) => ({ minute, p5: 70, p25: 90, p50: 110, p75: 130, p95: 170 });
const SUMMARY: CgmSummary = {
  days: 14,
  readings: 4000,
  expectedReadings: 4032,
  sensorUsage: 0.99,
  timeInRange: { veryLow: 0, low: 0, inRange: 1, high: 0, veryHigh: 0 },
  below70: 0,
  above180: 0,
  meanMgdl: 110,
  sdMgdl: 20,
  cv: 18,
  gmi: 5.9,
  agp: [bin(0), bin(15), null, bin(45)],
  daily: [],
};

type Series = {
  name: string;
  itemStyle?: { color?: string };
  areaStyle?: { color?: string };
  lineStyle?: { color?: string };
};

describe('agpChartOption', () => {
  it('gives each legend entry the colour it is drawn in (the bands their fill, not the palette)', () => {
    const option = agpChartOption(SUMMARY, 'mg/dL') as {
      legend: { data: string[] };
      series: Series[];
    };
    for (const name of option.legend.data) {
      const series = option.series.find((entry) => entry.name === name)!;
      const drawn = series.areaStyle?.color ?? series.lineStyle?.color;
      expect(drawn, name).toBeTruthy();
      expect(series.itemStyle?.color, name).toBe(drawn);
    }
  });
});

describe('the AGP chart on a phone (issue 30)', () => {
  /** The chart drawn 340 px wide (a 390-px phone less the page's padding), as SVG text. */
  function drawnTexts() {
    const day = Array.from({ length: 96 }, (_, index) => bin(index * 15));
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 340, height: 340 });
    chart.setOption(agpChartOption({ ...SUMMARY, agp: day }, 'mg/dL') as echarts.EChartsOption);
    const svg = chart.renderToSVGString();
    chart.dispose();
    return [...svg.matchAll(/<text[^>]*transform="([^"]+)"[^>]*>([^<]*)<\/text>/g)].map(
      ([, transform, text]) => {
        const numbers = transform!.match(/-?[\d.]+/g)!.map(Number);
        // translate(x y) or matrix(a b c d x y): the last two numbers are the position.
        return { text: text!, x: numbers.at(-2)!, y: numbers.at(-1)! };
      },
    );
  }

  it('keeps the time labels apart and the legend below them, clear of the axis title', () => {
    const texts = drawnTexts();
    const times = texts.filter((entry) => /^\d\d:\d\d$/.test(entry.text)).sort((a, b) => a.x - b.x);
    expect(times.length).toBeGreaterThanOrEqual(3);
    // A 12-px "00:00" is about 33 px wide: closer centres overlap.
    for (let index = 1; index < times.length; index += 1)
      expect(times[index]!.x - times[index - 1]!.x, times[index]!.text).toBeGreaterThanOrEqual(40);
    const legend = texts.filter((entry) => ['Median', '25–75 %', '5–95 %'].includes(entry.text));
    expect(legend).toHaveLength(3);
    const lowestTime = Math.max(...times.map((entry) => entry.y));
    for (const entry of legend) expect(entry.y, entry.text).toBeGreaterThan(lowestTime);
  });
});

describe('the AGP for everyone (decision 0193)', () => {
  it('its summary and table read the percentiles, not the drawn bands’ stacked differences', () => {
    const values = agpDataOption(SUMMARY, 'mg/dL');
    const table = chartTable(values);
    expect(table.columns.map((column) => column.header)).toEqual([
      'Category',
      '5 % (mg/dL)',
      '25 % (mg/dL)',
      'Median (mg/dL)',
      '75 % (mg/dL)',
      '95 % (mg/dL)',
    ]);
    expect(table.rows[0]).toEqual({ x: '00:00', s0: 70, s1: 90, s2: 110, s3: 130, s4: 170 });
    // The empty bin stays a row without values.
    expect(table.rows[2]).toMatchObject({ x: '00:30', s2: null });
    expect(chartSummary(values, 'Ambulatory glucose profile')).toContain(
      'Median: 3 values from 00:00 to 00:45, lowest 110 mg/dL, highest 110 mg/dL, mean 110 mg/dL.',
    );
  });
});
