import { ageOn } from '../../common/accounts';
import { addDays, toCivilMs, utcOffsetSeconds } from '../../common/civil-time';
import { lengthOf, weightOf } from '../units';
import { type FitbitCaller, type FitbitResource, localTimestamp } from './context';
import { visibleWeighIn } from './body';

/** profile.json (facts §1.4) and devices.json (§1.14, a top-level array). */
export const userResources: FitbitResource[] = [
  {
    version: '1',
    pattern: /^profile\.json$/,
    scope: 'profile',
    handle: (caller) => ({ body: { user: profile(caller) } }),
  },
  {
    version: '1',
    pattern: /^devices\.json$/,
    scope: 'settings',
    handle: (caller) => ({ body: devices(caller) }),
  },
];

function profile(caller: FitbitCaller) {
  const { account, units } = caller;
  const [firstName = '', ...rest] = account.displayName.split(' ');
  const us = units === 'US';
  const avatar = 'https://static0.fitbit.com/images/profile/defaultProfile_100.png';
  return {
    age: ageOn(account, caller.today),
    ambassador: false,
    autoStrideEnabled: true,
    avatar,
    avatar150: avatar.replace('_100', '_150'),
    avatar640: avatar.replace('_100', '_640'),
    averageDailySteps: account.habits.dailyStepsMean,
    clockTimeDisplayFormat: us ? '12hour' : '24hour',
    dateOfBirth: account.birthDate,
    displayName: `${firstName} ${rest.join(' ').slice(0, 1)}.`,
    displayNameSetting: 'name',
    distanceUnit: us ? 'en_US' : 'METRIC',
    encodedId: account.fitbitUserId,
    firstName,
    foodsLocale: 'en_US',
    fullName: account.displayName,
    gender: account.sex,
    glucoseUnit: us ? 'en_US' : 'METRIC',
    height: lengthOf(account.heightCm, units),
    heightUnit: us ? 'en_US' : 'METRIC',
    lastName: rest.join(' '),
    locale: 'en_US',
    memberSince: account.memberSince,
    offsetFromUTCMillis: utcOffsetSeconds(account.timeZone, caller.nowMs) * 1000,
    startDayOfWeek: us ? 'SUNDAY' : 'MONDAY',
    strideLengthRunning: lengthOf(account.heightCm * 0.65, units),
    strideLengthRunningType: 'default',
    strideLengthWalking: lengthOf(account.heightCm * 0.415, units),
    strideLengthWalkingType: 'default',
    swimUnit: us ? 'en_US' : 'METRIC',
    timezone: account.timeZone,
    waterUnit: us ? 'en_US' : 'METRIC',
    waterUnitName: us ? 'fl oz' : 'ml',
    weight: weightOf(latestWeightKg(caller), units),
    weightUnit: units === 'US' ? 'en_US' : units === 'UK' ? 'en_GB' : 'METRIC',
  };
}

function devices(caller: FitbitCaller) {
  const { account } = caller;
  const battery = (level: number) =>
    level === 0 ? 'Empty' : level < 25 ? 'Low' : level < 60 ? 'Medium' : 'High';
  const tz = account.timeZone;
  const list = [
    {
      battery: battery(account.tracker.batteryLevel),
      batteryLevel: account.tracker.batteryLevel,
      deviceVersion: account.tracker.model,
      features: [],
      id: account.tracker.id,
      lastSyncTime: localTimestamp(toCivilMs(tz, caller.trackerCutoff)),
      mac: account.tracker.mac,
      type: 'TRACKER',
    },
  ];
  if (account.scale) {
    let lastSync = caller.nowMs - 86_400_000;
    for (let back = 0; back < 30; back++) {
      const weighIn = visibleWeighIn(caller, addDays(caller.today, -back));
      if (weighIn) {
        lastSync = weighIn.utc + 40_000;
        break;
      }
    }
    list.push({
      battery: battery(account.scale.batteryLevel),
      batteryLevel: account.scale.batteryLevel,
      deviceVersion: account.scale.model,
      features: [],
      id: account.scale.id,
      lastSyncTime: localTimestamp(toCivilMs(tz, lastSync)),
      mac: account.scale.mac,
      type: 'SCALE',
    });
  }
  return list;
}

function latestWeightKg(caller: FitbitCaller): number {
  for (let back = 0; back < 60; back++) {
    const weighIn = visibleWeighIn(caller, addDays(caller.today, -back));
    if (weighIn) return weighIn.weightKg;
  }
  return caller.account.baselineWeightKg;
}
