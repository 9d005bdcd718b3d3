/**
 * Device records for /v3/users/self/devices: one per display device the account uses, with
 * its current transmitter, last upload and the alert schedule the app or receiver holds.
 */
import type { DexcomAccount, DisplayDevice } from './accounts';
import { displayApp, displayTime, transmitterId, type DexcomData } from './data';
import { formatUtcDateTime, localToEpoch } from '../common/civil-time';

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export function deviceRecords(account: DexcomAccount, data: DexcomData, now: number) {
  return data.devices(account, now).map(({ device, session, lastUpload }) => {
    // Settings were last changed on the day data starts.
    const changed = localToEpoch(account.timeZone, data.firstDay(account, now), 600);
    const setting = (
      alertName: string,
      unit: string,
      value: number,
      snooze: number,
      enabled: boolean,
    ) => ({
      systemTime: formatUtcDateTime(changed),
      displayTime: displayTime(account, device, changed),
      alertName,
      unit,
      value,
      snooze,
      enabled,
      delay: 0,
      secondaryTriggerCondition: 0,
      soundTheme: 'modern',
      soundOutputMode: 'sound',
    });
    const alertSettings = [
      setting('fall', 'mg/dL/min', 3, 0, account.logging === 'many'),
      setting('high', 'mg/dL', account.highAlert, 120, true),
      setting('low', 'mg/dL', 70, 30, true),
      setting('noReadings', 'minutes', 20, 0, true),
      setting('outOfRange', 'minutes', 20, 20, true),
      setting('rise', 'mg/dL/min', 3, 0, account.logging === 'many'),
      setting('urgentLow', 'mg/dL', 55, 30, true),
      setting('urgentLowSoon', 'mg/dL', 55, 30, true),
    ];
    const schedules: unknown[] = [
      {
        alertScheduleSettings: {
          alertScheduleName: '',
          isEnabled: true,
          isDefaultSchedule: true,
          startTime: '00:00',
          endTime: '00:00',
          daysOfWeek: DAYS,
          isActive: true,
          override: {
            isOverrideEnabled: false,
            mode: 'quiet',
            endTime: formatUtcDateTime(changed),
          },
        },
        alertSettings,
      },
    ];
    if (account.logging === 'many' && !isReceiver(device)) {
      schedules.push({
        alertScheduleSettings: {
          alertScheduleName: 'Night',
          isEnabled: true,
          isDefaultSchedule: false,
          startTime: '22:00',
          endTime: '07:00',
          daysOfWeek: DAYS,
          isActive: false,
          override: {
            isOverrideEnabled: false,
            mode: 'vibrate',
            endTime: formatUtcDateTime(changed),
          },
        },
        alertSettings: alertSettings.map((s) =>
          s.alertName === 'high'
            ? { ...s, value: Math.min(400, account.highAlert + 30), soundOutputMode: 'vibrate' }
            : s,
        ),
      });
    }
    return {
      lastUploadDate: formatUtcDateTime(lastUpload),
      transmitterId: transmitterId(account, session),
      transmitterGeneration: account.generation,
      displayDevice: device,
      displayApp: displayApp(account, device),
      alertSchedules: schedules,
    };
  });
}

function isReceiver(device: DisplayDevice): boolean {
  return device === 'receiver' || device === 'touchscreenReceiver';
}
