import { createContext, useContext } from 'react';
import type { Trial } from '@trialpulse/shared';
import type { DeviceStatusCycle } from '../hooks/use-device-status-cycle';

export type DeviceStatusContextValue = {
  cycle: DeviceStatusCycle;
  trial: Trial;
  /** Only Sys_Admin gets View Participant Data on errored entries (access spec §4). */
  /** 'View Participant Data' on errored entries (`deviceError.viewData`). */
  canViewErrorData: boolean;
};

export const DeviceStatusContext = createContext<DeviceStatusContextValue | null>(null);

export function useDeviceStatusContext(): DeviceStatusContextValue {
  const value = useContext(DeviceStatusContext);
  if (!value) throw new Error('DeviceStatusCell must be used inside <DeviceStatusProvider>');
  return value;
}
