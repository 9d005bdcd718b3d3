import { describe, expect, it } from 'vitest';
import type { CgmSummary } from '@trialpulse/shared/device-data/cgm';
import { agpChartOption } from './cgm-charts';

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
