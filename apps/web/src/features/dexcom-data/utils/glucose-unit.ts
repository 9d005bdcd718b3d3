import { useState } from 'react';
import { GLUCOSE_UNITS, type GlucoseUnit } from '@trialpulse/shared/device-data/cgm';
import { readStoredJson, writeStoredJson } from '@/components/data-table';
import { useSession } from '@/lib/session';

/**
 * The glucose unit the signed-in user chose (mg/dL by default), kept in local storage per
 * user id (decision 0056): another user of the same browser keeps their own.
 */
export function useGlucoseUnit(): [GlucoseUnit, (unit: GlucoseUnit) => void] {
  const { user } = useSession();
  const key = `tp.glucoseUnit.${user?.id ?? 'anonymous'}`;
  const [unit, setUnit] = useState<GlucoseUnit>(() => {
    const stored = readStoredJson('local', key);
    return (GLUCOSE_UNITS as readonly unknown[]).includes(stored)
      ? (stored as GlucoseUnit)
      : 'mg/dL';
  });
  return [
    unit,
    (next) => {
      writeStoredJson('local', key, next);
      setUnit(next);
    },
  ];
}
