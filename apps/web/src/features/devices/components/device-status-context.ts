import { createContext, useContext } from 'react';
import type { DeviceBrandName, Trial } from '@trialpulse/shared';
import type { DeviceStatusCycle } from '../hooks/use-device-status-cycle';

export type DeviceStatusContextValue = {
  cycle: DeviceStatusCycle;
  trial: Trial;
  /** The brands the team allows (what the cycle checks); empty until they are loaded. */
  brands: readonly DeviceBrandName[];
  /** 'View Participant Data' on errored entries (`deviceError.viewData`; Sys_Admin only, access spec §4). */
  canViewErrorData: boolean;
};

export const DeviceStatusContext = createContext<DeviceStatusContextValue | null>(null);

export function useDeviceStatusContext(): DeviceStatusContextValue {
  const value = useContext(DeviceStatusContext);
  if (!value) throw new Error('DeviceStatusCell must be used inside <DeviceStatusProvider>');
  return value;
}
