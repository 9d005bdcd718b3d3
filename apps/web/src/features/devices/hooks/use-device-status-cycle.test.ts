import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { LIMITS, type AuthorisedDeviceEntry, type DeviceBrandName } from '@trialpulse/shared';
import { deviceStatusAnswer, FOUND, NOT_FOUND } from '../testing/device-fixtures';
import { errorBody, mockApi, type RecordedCall } from '@/testing/mock-api';
import { useDeviceStatusCycle } from './use-device-status-cycle';

const ALL: DeviceBrandName[] = ['Fitbit', 'Omron', 'Dexcom'];

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
        timeline.push(`${Date.now() - t0} ${decodeURIComponent(call.url.replace('/api/', ''))}`);
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
  it('asks once for every participant of the page: each brand the team allows, Fitbit with its devices', async () => {
    mockDeviceApi({
      'GET /api/deviceStatus': deviceStatusAnswer(
        {
          1: { Fitbit: { auth: FOUND, devices: [CHARGE] }, Omron: { auth: FOUND } },
          2: { Dexcom: { auth: FOUND } },
        },
        ALL,
      ),
    });
    const { result } = renderHook(() => useDeviceStatusCycle(P(1, 2), { brands: ALL }));
    await settle();

    expect(timeline).toEqual(['0 deviceStatus?ids=1,2']);
    expect(
      result.current.statuses[1]?.brands.map((brand) => [brand.brand, brand.auth?.message]),
    ).toEqual([
      ['Fitbit', 'found'],
      ['Omron', 'found'],
      ['Dexcom', 'not found'],
    ]);
    expect(result.current.statuses[1]?.brands[0]?.devices).toEqual([CHARGE]);
    expect(result.current.statuses[2]?.brands.map((brand) => brand.auth?.message)).toEqual([
      'not found',
      'not found',
      'found',
    ]);
    expect(result.current.someFailed).toBe(false);
  });

  it('starts the whole cycle again every 300000 ms, one request each time', async () => {
    mockDeviceApi({ 'GET /api/deviceStatus': deviceStatusAnswer({ 1: {}, 2: {} }) });
    renderHook(() => useDeviceStatusCycle(P(1, 2), { brands: ['Fitbit'] }));
    await settle();
    expect(timeline).toEqual(['0 deviceStatus?ids=1,2']);

    await advance(LIMITS.deviceStatusRefreshMs - 1);
    expect(timeline).toHaveLength(1);

    await advance(1);
    expect(timeline.slice(1)).toEqual([`${LIMITS.deviceStatusRefreshMs} deviceStatus?ids=1,2`]);
    await advance(LIMITS.deviceStatusRefreshMs);
    expect(timeline).toHaveLength(3);
  });

  it('asks at once for a new page, and the old page’s cycle stops', async () => {
    mockDeviceApi({ 'GET /api/deviceStatus': deviceStatusAnswer({ 1: {}, 2: {}, 3: {}, 4: {} }) });
    const { rerender } = renderHook(
      ({ page }) => useDeviceStatusCycle(page, { brands: ['Fitbit'] }),
      {
        initialProps: { page: P(1, 2) },
      },
    );
    await settle();
    await advance(1_000);
    rerender({ page: P(3, 4) });
    await settle();
    expect(timeline).toEqual(['0 deviceStatus?ids=1,2', '1000 deviceStatus?ids=3,4']);

    await advance(LIMITS.deviceStatusRefreshMs);
    expect(timeline.slice(2)).toEqual([
      `${LIMITS.deviceStatusRefreshMs + 1_000} deviceStatus?ids=3,4`,
    ]);
  });

  it('keeps only the brands the team allows', async () => {
    mockDeviceApi({
      'GET /api/deviceStatus': deviceStatusAnswer({ 1: { Omron: { auth: FOUND } } }, ALL),
    });
    const { result } = renderHook(() => useDeviceStatusCycle(P(1), { brands: ['Omron'] }));
    await settle();
    expect(result.current.statuses[1]?.brands).toEqual([
      { brand: 'Omron', auth: FOUND, devices: [] },
    ]);
  });

  it('turns a failed call into error entries, shows the provider’s error entries, and goes on', async () => {
    const rateLimited: AuthorisedDeviceEntry = {
      ...CHARGE,
      deviceVersion: null,
      batteryLevel: null,
      hasError: true,
      errorType: 'rate_limit',
    };
    let answer: 'fails' | 'bad shape' | 'limited' | 'ok' = 'fails';
    mockDeviceApi({
      'GET /api/deviceStatus': (call) => {
        if (answer === 'fails') return { status: 500, body: errorBody('boom', false) };
        if (answer === 'bad shape') return { body: { statuses: [{ participantId: 1 }] } };
        if (answer === 'limited') return { status: 429, body: errorBody('slow down', true) };
        return deviceStatusAnswer({
          1: { Fitbit: { auth: FOUND, devices: [rateLimited] } },
          2: {},
        })(call);
      },
    });
    const { result } = renderHook(() =>
      useDeviceStatusCycle(P(1, 2), { brands: ['Fitbit', 'Omron'] }),
    );
    const errorTypes = (id: number) =>
      result.current.statuses[id]?.brands.map((brand) => [
        brand.brand,
        brand.devices.map((device) => (device.hasError ? device.errorType : 'ok')),
      ]);
    await settle();
    expect(errorTypes(1)).toEqual([
      ['Fitbit', ['auth_check_failed']],
      ['Omron', ['auth_check_failed']],
    ]);
    expect(errorTypes(2)).toEqual(errorTypes(1));
    expect(result.current.statuses[1]?.brands[0]?.auth).toBeNull();
    expect(result.current.someFailed).toBe(true);

    answer = 'bad shape';
    await advance(LIMITS.deviceStatusRefreshMs);
    expect(errorTypes(1)).toEqual([
      ['Fitbit', ['processing_error']],
      ['Omron', ['processing_error']],
    ]);
    answer = 'limited';
    await advance(LIMITS.deviceStatusRefreshMs);
    expect(errorTypes(2)?.[0]).toEqual(['Fitbit', ['rate_limit']]);

    answer = 'ok';
    await advance(LIMITS.deviceStatusRefreshMs);
    expect(errorTypes(1)).toEqual([
      ['Fitbit', ['rate_limit']],
      ['Omron', []],
    ]);
    expect(errorTypes(2)).toEqual([
      ['Fitbit', []],
      ['Omron', []],
    ]);
    expect(result.current.statuses[2]?.brands[0]?.auth).toEqual(NOT_FOUND);
    expect(timeline).toHaveLength(4);
  });

  it('stops when unmounted', async () => {
    mockDeviceApi({ 'GET /api/deviceStatus': deviceStatusAnswer({ 1: {}, 2: {} }) });
    const { unmount } = renderHook(() => useDeviceStatusCycle(P(1, 2), { brands: ['Fitbit'] }));
    await settle();
    unmount();
    await advance(LIMITS.deviceStatusRefreshMs * 2);
    expect(timeline).toEqual(['0 deviceStatus?ids=1,2']);
  });

  it('checks nothing while disabled', async () => {
    mockDeviceApi({ 'GET /api/deviceStatus': deviceStatusAnswer({ 1: {} }) });
    renderHook(() => useDeviceStatusCycle(P(1), { brands: ['Fitbit'], enabled: false }));
    await advance(LIMITS.deviceStatusRefreshMs);
    expect(timeline).toEqual([]);
  });
});
