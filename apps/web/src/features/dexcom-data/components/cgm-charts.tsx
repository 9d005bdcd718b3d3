import { useMemo } from 'react';
import {
  glucoseIn,
  TIME_IN_RANGE_BANDS,
  type CgmSummary,
  type GlucoseUnit,
} from '@trialpulse/shared/device-data/cgm';
import { EChart, type EChartOption } from '@/components/charts';
import { withAria } from '@/components/charts/chart-data';
import { ChartFigure } from '@/components/charts/chart-figure';

/** Band colours as in AGP reports: very low dark red … very high orange. */
export const RANGE_COLORS: Record<(typeof TIME_IN_RANGE_BANDS)[number]['key'], string> = {
  veryLow: '#b71c1c',
  low: '#e53935',
  inRange: '#43a047',
  high: '#fbc02d',
  veryHigh: '#ef6c00',
};

const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** One stacked bar of the five ranges (percent of readings), very high on top. */
export function TimeInRangeBars({ summary }: { summary: CgmSummary }) {
  const option = useMemo<EChartOption>(
    () => ({
      animation: false,
      tooltip: { trigger: 'item', valueFormatter: (value: number) => `${value.toFixed(1)} %` },
      legend: { right: 0, orient: 'vertical', top: 'middle' },
      grid: { left: 8, right: 150, top: 8, bottom: 8, containLabel: true },
      xAxis: { type: 'category', data: ['Time in ranges'], show: false },
      yAxis: { type: 'value', max: 100, axisLabel: { formatter: '{value} %' } },
      series: TIME_IN_RANGE_BANDS.map((band) => ({
        type: 'bar',
        stack: 'tir',
        name: band.label,
        barWidth: 56,
        itemStyle: { color: RANGE_COLORS[band.key] },
        label: {
          show: summary.timeInRange[band.key] >= 0.03,
          formatter: ({ value }: { value: number }) => `${value.toFixed(0)} %`,
        },
        data: [Math.round(summary.timeInRange[band.key] * 1000) / 10],
      })),
    }),
    [summary],
  );
  return (
    <ChartFigure option={option} height={280} testId="cgm-tir-chart" ariaLabel="Time in ranges" />
  );
}

/**
 * The AGP chart's option: the 5–95 and 25–75 percentile bands (stacked areas) and the median
 * by time of day, the target range shaded.
 */
export function agpChartOption(summary: CgmSummary, unit: GlucoseUnit): EChartOption {
  const bins = summary.agp.map((bin, index) => ({ label: hhmm(index * 15), bin }));
  const value = (pick: (bin: NonNullable<CgmSummary['agp'][number]>) => number) =>
    bins.map(({ bin }) => (bin ? glucoseIn(unit, pick(bin)) : null));
  const diff = (upper: (number | null)[], lower: (number | null)[]) =>
    upper.map((u, i) =>
      u === null || lower[i] === null ? null : Math.round((u - lower[i]!) * 10) / 10,
    );
  const p5 = value((b) => b.p5);
  const p25 = value((b) => b.p25);
  const p75 = value((b) => b.p75);
  const p95 = value((b) => b.p95);
  // Stacked areas: an invisible base at p5, then p5→p25, p25→p75, p75→p95.
  const layer = (name: string, data: (number | null)[], color: string | null) => ({
    type: 'line',
    name,
    stack: 'agp',
    data,
    symbol: 'none',
    lineStyle: { opacity: 0 },
    areaStyle: color ? { color } : { opacity: 0 },
    // The legend draws a line series' symbol in its item colour: the band's, not the palette's.
    ...(color && { itemStyle: { color } }),
    tooltip: { show: false },
  });
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    // Readable on a phone (issue 30): the legend below the time axis, the unit beside the
    // glucose axis (a legend on top wrapped over it), and time labels that would touch hidden.
    legend: { bottom: 0, data: ['Median', '25–75 %', '5–95 %'] },
    grid: { left: 64, right: 16, top: 16, bottom: 64 },
    xAxis: {
      type: 'category',
      data: bins.map((b) => b.label),
      boundaryGap: false,
      axisLabel: { interval: 11, hideOverlap: true },
    },
    yAxis: {
      type: 'value',
      name: unit,
      nameLocation: 'middle',
      nameGap: 44,
      min: 0,
      max: glucoseIn(unit, 350),
    },
    series: [
      layer('base', p5, null),
      layer('5–95 %', diff(p25, p5), 'rgba(21, 101, 192, 0.15)'),
      layer('25–75 %', diff(p75, p25), 'rgba(21, 101, 192, 0.35)'),
      layer('75–95 %', diff(p95, p75), 'rgba(21, 101, 192, 0.15)'),
      {
        type: 'line',
        name: 'Median',
        data: value((b) => b.p50),
        symbol: 'none',
        lineStyle: { color: '#0d47a1', width: 2 },
        itemStyle: { color: '#0d47a1' },
        markArea: {
          silent: true,
          itemStyle: { color: 'rgba(67, 160, 71, 0.08)' },
          data: [[{ yAxis: glucoseIn(unit, 70) }, { yAxis: glucoseIn(unit, 180) }]],
        },
      },
    ],
  };
}

/**
 * The AGP's values for its summary and table (decision 0193): the five percentiles by time
 * of day as plain series, not the drawn bands' stacked differences.
 */
export function agpDataOption(summary: CgmSummary, unit: GlucoseUnit): EChartOption {
  const value = (pick: (bin: NonNullable<CgmSummary['agp'][number]>) => number) =>
    summary.agp.map((bin) => (bin ? glucoseIn(unit, pick(bin)) : null));
  return {
    xAxis: { type: 'category', data: summary.agp.map((_, index) => hhmm(index * 15)) },
    yAxis: { type: 'value', name: unit },
    series: [
      { type: 'line', name: '5 %', data: value((b) => b.p5) },
      { type: 'line', name: '25 %', data: value((b) => b.p25) },
      { type: 'line', name: 'Median', data: value((b) => b.p50) },
      { type: 'line', name: '75 %', data: value((b) => b.p75) },
      { type: 'line', name: '95 %', data: value((b) => b.p95) },
    ],
  };
}

/** AGP: the 5–95 and 25–75 percentile bands and the median by time of day. */
export function AgpChart({ summary, unit }: { summary: CgmSummary; unit: GlucoseUnit }) {
  const option = useMemo(() => agpChartOption(summary, unit), [summary, unit]);
  const values = useMemo(() => agpDataOption(summary, unit), [summary, unit]);
  return (
    <ChartFigure
      option={option}
      dataOption={values}
      height={340}
      testId="cgm-agp-chart"
      ariaLabel="Ambulatory glucose profile"
    />
  );
}

/** One small chart per day (the latest 14), the target range shaded. */
export function DailyTraces({ summary, unit }: { summary: CgmSummary; unit: GlucoseUnit }) {
  const days = summary.daily.slice(-14);
  return (
    <div
      data-testid="cgm-daily-traces"
      style={{
        display: 'grid',
        gridTemplateColumns: 'repeat(auto-fill, minmax(180px, 1fr))',
        gap: 8,
      }}
    >
      {days.map((day) => (
        <DailyTrace key={day.date} date={day.date} points={day.points} unit={unit} />
      ))}
    </div>
  );
}

function DailyTrace({
  date,
  points,
  unit,
}: {
  date: string;
  points: Array<[number, number]>;
  unit: GlucoseUnit;
}) {
  const option = useMemo<EChartOption>(
    () => ({
      animation: false,
      title: { text: date, left: 'center', textStyle: { fontSize: 11, fontWeight: 'normal' } },
      grid: { left: 28, right: 6, top: 22, bottom: 18 },
      xAxis: {
        type: 'value',
        min: 0,
        max: 1440,
        interval: 360,
        axisLabel: { fontSize: 9, formatter: (m: number) => hhmm(m) },
      },
      yAxis: { type: 'value', min: 0, max: glucoseIn(unit, 400), axisLabel: { fontSize: 9 } },
      series: [
        {
          type: 'line',
          data: points.map(([minute, mgdl]) => [minute, glucoseIn(unit, mgdl)]),
          symbol: 'none',
          lineStyle: { width: 1, color: '#1565c0' },
          markArea: {
            silent: true,
            itemStyle: { color: 'rgba(67, 160, 71, 0.12)' },
            data: [[{ yAxis: glucoseIn(unit, 70) }, { yAxis: glucoseIn(unit, 180) }]],
          },
        },
      ],
    }),
    [date, points, unit],
  );
  // Fourteen small charts: each reads its own summary (aria); no table button per day.
  const described = useMemo(() => withAria(option, `Glucose on ${date}`), [option, date]);
  return <EChart option={described} height={120} ariaLabel={`Glucose on ${date}`} />;
}
