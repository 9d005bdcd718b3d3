import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { LIMITS, type AuthorisedDeviceEntry, type DeviceBrandName } from '@trialpulse/shared';
import { errorBody, mockApi, type RecordedCall } from '@/testing/mock-api';
import { useDeviceStatusCycle } from './use-device-status-cycle';

const ALL: DeviceBrandName[] = ['Fitbit', 'Omron', 'Dexcom'];

const found = { body: { message: 'found', status: 'authorized', upstream: 'google-health' } };
const notFound = { body: { message: 'not found', status: 'not_authorized', upstream: null } };

const CHARGE: AuthorisedDeviceEntry = {
  device: 'Fitbit',
  deviceVersion: 'Charge 6',
  deviceType: 'TRACKER',
  batteryLevel: 95,
  battery: 'High',
  lastSyncTime: '2025-03-01T10:00:00.000Z',
  hasError: false,
  errorType: null,
};

let t0 = 0;
/** "ms-since-start path" of every call, in order. */
let timeline: string[] = [];

/** Mocks the API and stamps each call with the fake clock. */
function mockDeviceApi(handlers: Parameters<typeof mockApi>[0]) {
  const stamped = Object.fromEntries(
    Object.entries(handlers).map(([key, reply]) => [
      key,
      (call: RecordedCall) => {
        timeline.push(`${Date.now() - t0} ${call.url.replace('/api/', '')}`);
        return typeof reply === 'function' ? reply(call) : reply;
      },
    ]),
  );
  return mockApi(stamped);
}

/** Lets fetch answers settle (real macrotasks) without moving the fake clock. */
async function settle() {
  await act(async () => {
    for (let round = 0; round < 20; round += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
}

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  await settle();
}

const P = (...ids: number[]) => ids.map((id) => ({ id }));

beforeEach(() => {
  // setImmediate stays real: `settle` uses it to let fetch answers arrive.
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  t0 = Date.now();
  timeline = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('useDeviceStatusCycle', () => {
  it('checks one participant at a time: Fitbit, its devices when found, Omron, Dexcom; 100 ms apart', async () => {
    mockDeviceApi({
      'GET /api/fitbitIsParticipantAuth/1': found,
      'GET /api/fitbitDevices/1': { body: { devices: [CHARGE] } },
      'GET /api/omronIsParticipantAuth/1': found,
      'GET /api/dexcomIsParticipantAuth/1': notFound,
      'GET /api/fitbitIsParticipantAuth/2': notFound,
      'GET /api/omronIsParticipantAuth/2': notFound,
      'GET /api/dexcomIsParticipantAuth/2': found,
    });
    const { result } = renderHook(() => useDeviceStatusCycle(P(1, 2), { brands: ALL }));
    await settle();

    expect(timeline).toEqual([
      '0 fitbitIsParticipantAuth/1',
      '0 fitbitDevices/1',
      '0 omronIsParticipantAuth/1',
      '0 dexcomIsParticipantAuth/1',
    ]);
    await advance(LIMITS.deviceStatusGapMs - 1);
    expect(timeline).toHaveLength(4);

    await advance(1);
    expect(timeline.slice(4)).toEqual([
      '100 fitbitIsParticipantAuth/2',
      '100 omronIsParticipantAuth/2',
      '100 dexcomIsParticipantAuth/2',
    ]);
    expect(result.current.statuses[1]?.brands.map((brand) => [brand.brand, brand.auth?.message]))
      .toEqual([
        ['Fitbit', 'found'],
        ['Omron', 'found'],
        ['Dexcom', 'not found'],
      ]);
    expect(result.current.statuses[1]?.brands[0]?.devices).toEqual([CHARGE]);
    expect(result.current.statuses[2]?.brands[0]?.devices).toEqual([]);
    expect(result.current.someFailed).toBe(false);
  });

  it('starts the whole cycle again every 300000 ms', async () => {
    mockDeviceApi({
      'GET /api/fitbitIsParticipantAuth/1': notFound,
      'GET /api/fitbitIsParticipantAuth/2': notFound,
    });
    renderHook(() => useDeviceStatusCycle(P(1, 2), { brands: ['Fitbit'] }));
    await settle();
    await advance(LIMITS.deviceStatusGapMs);
    expect(timeline).toEqual(['0 fitbitIsParticipantAuth/1', '100 fitbitIsParticipantAuth/2']);

    await advance(LIMITS.deviceStatusRefreshMs - LIMITS.deviceStatusGapMs - 1);
    expect(timeline).toHaveLength(2);

    await advance(1);
    expect(timeline.slice(2)).toEqual([
      `${LIMITS.deviceStatusRefreshMs} fitbitIsParticipantAuth/1`,
    ]);
    await advance(LIMITS.deviceStatusGapMs);
    expect(timeline.slice(3)).toEqual([
      `${LIMITS.deviceStatusRefreshMs + LIMITS.deviceStatusGapMs} fitbitIsParticipantAuth/2`,
    ]);
  });

  it('checks only the brands the team allows', async () => {
    mockDeviceApi({ 'GET /api/omronIsParticipantAuth/1': found });
    renderHook(() => useDeviceStatusCycle(P(1), { brands: ['Omron'] }));
    await settle();
    expect(timeline).toEqual(['0 omronIsParticipantAuth/1']);
  });

  it('turns failed checks into error entries and goes on with the cycle', async () => {
    const rateLimited: AuthorisedDeviceEntry = {
      ...CHARGE,
      deviceVersion: null,
      batteryLevel: null,
      hasError: true,
      errorType: 'rate_limit',
    };
    mockDeviceApi({
      'GET /api/fitbitIsParticipantAuth/1': { status: 500, body: errorBody('boom', false) },
      'GET /api/omronIsParticipantAuth/1': found,
      'GET /api/fitbitIsParticipantAuth/2': found,
      'GET /api/fitbitDevices/2': () => Promise.reject(new TypeError('Failed to fetch')),
      'GET /api/omronIsParticipantAuth/2': { body: { message: 'maybe' } },
      'GET /api/fitbitIsParticipantAuth/3': found,
      'GET /api/fitbitDevices/3': { body: { devices: [{ device: 'Fitbit' }] } },
      'GET /api/omronIsParticipantAuth/3': notFound,
      'GET /api/fitbitIsParticipantAuth/4': found,
      'GET /api/fitbitDevices/4': { body: { devices: [rateLimited] } },
      'GET /api/omronIsParticipantAuth/4': notFound,
    });
    const { result } = renderHook(() =>
      useDeviceStatusCycle(P(1, 2, 3, 4), { brands: ['Fitbit', 'Omron'] }),
    );
    await settle();
    for (let step = 0; step < 3; step += 1) await advance(LIMITS.deviceStatusGapMs);

    expect(timeline).toEqual([
      '0 fitbitIsParticipantAuth/1',
      '0 omronIsParticipantAuth/1',
      '100 fitbitIsParticipantAuth/2',
      '100 fitbitDevices/2',
      '100 omronIsParticipantAuth/2',
      '200 fitbitIsParticipantAuth/3',
      '200 fitbitDevices/3',
      '200 omronIsParticipantAuth/3',
      '300 fitbitIsParticipantAuth/4',
      '300 fitbitDevices/4',
      '300 omronIsParticipantAuth/4',
    ]);
    const errorTypes = (id: number) =>
      result.current.statuses[id]?.brands.map((brand) => [
        brand.brand,
        brand.devices.map((device) => (device.hasError ? device.errorType : 'ok')),
      ]);
    expect(errorTypes(1)).toEqual([
      ['Fitbit', ['auth_check_failed']],
      ['Omron', []],
    ]);
    expect(result.current.statuses[1]?.brands[0]?.auth).toBeNull();
    expect(errorTypes(2)).toEqual([
      ['Fitbit', ['connection_error']],
      ['Omron', ['processing_error']],
    ]);
    expect(errorTypes(3)).toEqual([
      ['Fitbit', ['processing_error']],
      ['Omron', []],
    ]);
    expect(errorTypes(4)).toEqual([
      ['Fitbit', ['rate_limit']],
      ['Omron', []],
    ]);
    expect(result.current.someFailed).toBe(true);
  });

  it('stops when unmounted', async () => {
    mockDeviceApi({
      'GET /api/fitbitIsParticipantAuth/1': notFound,
      'GET /api/fitbitIsParticipantAuth/2': notFound,
    });
    const { unmount } = renderHook(() => useDeviceStatusCycle(P(1, 2), { brands: ['Fitbit'] }));
    await settle();
    unmount();
    await advance(LIMITS.deviceStatusRefreshMs * 2);
    expect(timeline).toEqual(['0 fitbitIsParticipantAuth/1']);
  });

  it('checks nothing while disabled', async () => {
    mockDeviceApi({ 'GET /api/fitbitIsParticipantAuth/1': notFound });
    renderHook(() => useDeviceStatusCycle(P(1), { brands: ['Fitbit'], enabled: false }));
    await advance(LIMITS.deviceStatusRefreshMs);
    expect(timeline).toEqual([]);
  });
});
