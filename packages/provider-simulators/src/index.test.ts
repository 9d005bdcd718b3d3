import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllSimulators, type AllSimulators } from './index';

describe('startAllSimulators', () => {
  let simulators: AllSimulators;
  beforeAll(async () => {
    simulators = await startAllSimulators();
  });
  afterAll(() => simulators.close());

  it('starts four distinct simulators on free ports, each with its control API', async () => {
    const urls = [
      simulators.googleHealth,
      simulators.fitbitLegacy,
      simulators.omron,
      simulators.dexcom,
    ].map((simulator) => simulator.baseUrl);
    expect(new Set(urls).size).toBe(4);
    for (const url of urls) {
      const response = await fetch(`${url}/__control`);
      expect(response.status).toBe(200);
    }
  });

  it('starts the legacy Fitbit API already shut down by default, as the real one is', async () => {
    const response = await fetch(`${simulators.fitbitLegacy.baseUrl}/1/user/-/profile.json`);
    expect(response.status).toBe(410);
  });
});
