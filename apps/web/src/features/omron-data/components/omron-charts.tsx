import { useMemo } from 'react';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import {
  OMRON_UNITS,
  kgToLbs,
  type OmronBloodPressureReading,
  type OmronWeightReading,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { timeAxisChart } from '@/components/charts';
import { ChartFigure } from '@/components/charts/chart-figure';
import { DIASTOLIC_THRESHOLDS, SYSTOLIC_BANDS } from '../utils/blood-pressure';

const at = (reading: { dateTime: string }) => Date.parse(reading.dateTime);

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/** Systolic and diastolic (mmHg) over the blood-pressure bands, and pulse (BPM). */
export function BloodPressureCharts({
  readings,
}: {
  readings: readonly OmronBloodPressureReading[];
}) {
  const pressure = useMemo(
    () =>
      timeAxisChart({
        unit: OMRON_UNITS.pressure,
        bands: SYSTOLIC_BANDS,
        lines: DIASTOLIC_THRESHOLDS.map((value) => ({ value, label: `${value}` })),
        series: [
          {
            name: 'Systolic',
            color: '#c62828',
            symbolOnly: true,
            points: readings.map((r) => [at(r), r.systolic] as const),
          },
          {
            name: 'Diastolic',
            color: '#1565c0',
            symbolOnly: true,
            points: readings.map((r) => [at(r), r.diastolic] as const),
          },
        ],
      }),
    [readings],
  );
  const pulse = useMemo(
    () =>
      timeAxisChart({
        unit: OMRON_UNITS.pulse,
        axis: 'heart-rate',
        series: [
          {
            name: 'Pulse',
            color: '#6a1b9a',
            symbolOnly: true,
            points: readings.map((r) => [at(r), r.pulse] as const),
          },
        ],
      }),
    [readings],
  );
  return (
    <>
      <ChartCard title={`Blood pressure (${OMRON_UNITS.pressure})`}>
        <ChartFigure
          option={pressure}
          height={320}
          testId="omron-bp-chart"
          ariaLabel="Systolic and diastolic blood pressure over time"
        />
      </ChartCard>
      <ChartCard title={`Pulse (${OMRON_UNITS.pulse})`}>
        <ChartFigure
          option={pulse}
          height={240}
          testId="omron-pulse-chart"
          ariaLabel="Pulse over time"
        />
      </ChartCard>
    </>
  );
}

/** Weight in pounds. */
export function WeightChart({ readings }: { readings: readonly OmronWeightReading[] }) {
  const option = useMemo(
    () =>
      timeAxisChart({
        unit: OMRON_UNITS.weight,
        series: [
          {
            name: 'Weight',
            color: '#2e7d32',
            symbolOnly: true,
            points: readings.map((r) => [at(r), kgToLbs(r.weight)] as const),
          },
        ],
      }),
    [readings],
  );
  return (
    <ChartCard title={`Weight (${OMRON_UNITS.weight})`}>
      <ChartFigure
        option={option}
        height={280}
        testId="omron-weight-chart"
        ariaLabel="Weight over time"
      />
    </ChartCard>
  );
}
