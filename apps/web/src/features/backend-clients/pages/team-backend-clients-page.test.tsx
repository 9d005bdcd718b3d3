import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  BACKEND_CLIENT_MESSAGES,
  type BackendClient,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { fieldErrors, writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const ACTIVE: BackendClient = {
  id: 3,
  clientId: 'q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6',
  name: 'R pipeline',
  scopes: ['system/Observation.rs', 'system/Patient.rs'],
  keyFormat: 'jwks',
  keyIds: ['k1'],
  createdAt: '2026-11-20T10:00:00.000Z',
  revokedAt: null,
};
const REVOKED: BackendClient = {
  ...ACTIVE,
  id: 2,
  clientId: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
  name: 'Old pipeline',
  scopes: ['system/*.rs'],
  revokedAt: '2026-11-21T08:30:00.000Z',
};
const JWKS = JSON.stringify({
  keys: [{ kty: 'EC', crv: 'P-384', x: 'abc', y: 'def', kid: 'k1' }],
});

async function open(overrides: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'Admin' }) }),
    'GET /api/backendClients': { body: [ACTIVE, REVOKED] },
    'GET /fhir/.well-known/smart-configuration': {
      body: {
        issuer: 'https://trialpulse.example/fhir',
        token_endpoint: 'https://trialpulse.example/fhir/auth/token',
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ['RS384', 'ES384'],
        grant_types_supported: ['client_credentials'],
        scopes_supported: ['system/*.rs'],
        capabilities: ['client-confidential-asymmetric'],
      },
    },
    ...overrides,
  });
  renderApp('/TeamBackendClients');
  // The first render loads the lazy page and the table library: slow on a cold module graph.
  await screen.findByText('R pipeline', {}, { timeout: 60_000 });
  return api;
}

async function openRegister() {
  fireEvent.click(screen.getByTestId('register-backend-client-button'));
  return screen.findByRole('dialog', { name: 'Register Client' });
}

describe('/TeamBackendClients (Pipeline Clients)', () => {
  it('lists the clients with client id, scopes, created and revoked, and names the token endpoint', async () => {
    await open();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Pipeline Clients');
    expect(screen.getByTestId('backend-client-id-3').textContent).toBe(ACTIVE.clientId);
    expect(screen.getByText('system/Observation.rs')).toBeTruthy();
    expect(screen.getByTestId('backend-client-revoke-3')).toBeTruthy();
    expect(screen.queryByTestId('backend-client-revoke-2')).toBeNull();
    expect(screen.getByTestId('backend-client-revoked-2').getAttribute('datetime')).toBe(
      REVOKED.revokedAt,
    );
    expect((await screen.findByTestId('backend-clients-endpoints')).textContent).toContain(
      'https://trialpulse.example/fhir/auth/token',
    );
  });

  it('checks the form with the shared messages and sends nothing while it is wrong', async () => {
    const { calls } = await open();
    const dialog = await openRegister();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
    await waitFor(() =>
      expect(fieldErrors()).toEqual([
        BACKEND_CLIENT_MESSAGES.nameRequired,
        BACKEND_CLIENT_MESSAGES.keyRequired,
        BACKEND_CLIENT_MESSAGES.scopesRequired,
      ]),
    );
    const key = within(dialog).getByLabelText('Public key (JWKS or PEM)');
    fireEvent.change(key, {
      target: { value: '-----BEGIN PRIVATE KEY-----\nMIG2\n-----END PRIVATE KEY-----' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
    await waitFor(() => expect(fieldErrors()).toContain(BACKEND_CLIENT_MESSAGES.keyPrivate));
    fireEvent.change(key, { target: { value: 'ssh-rsa AAAA' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
    await waitFor(() => expect(fieldErrors()).toContain(BACKEND_CLIENT_MESSAGES.keyInvalid));
    expect(writes(calls).filter((call) => call.url === '/api/backendClients')).toEqual([]);
  });

  it('registers a client and shows its client id; a key the server refuses shows under the field', async () => {
    const created: BackendClient = {
      ...ACTIVE,
      id: 4,
      clientId: 'n3wcl13nt1dn3wcl13nt1dn3wcl13nt',
      name: 'Python pipeline',
      scopes: ['system/Observation.rs'],
    };
    let refuse = true;
    const { calls } = await open({
      'POST /api/backendClients': () =>
        refuse
          ? {
              status: 400,
              body: {
                ...errorBody(BACKEND_CLIENT_MESSAGES.keyUnusable, true, 'VALIDATION_ERROR'),
                errors: [{ field: 'publicKey', message: BACKEND_CLIENT_MESSAGES.keyUnusable }],
              },
            }
          : { status: 201, body: { message: BACKEND_CLIENT_MESSAGES.registered, client: created } },
    });
    const dialog = await openRegister();
    fireEvent.change(within(dialog).getByLabelText('Name'), {
      target: { value: 'Python pipeline' },
    });
    fireEvent.change(within(dialog).getByLabelText('Public key (JWKS or PEM)'), {
      target: { value: JWKS },
    });
    fireEvent.click(
      within(dialog).getByLabelText('Observations (readings) (system/Observation.rs)'),
    );
    fireEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
    await waitFor(() => expect(fieldErrors()).toEqual([BACKEND_CLIENT_MESSAGES.keyUnusable]));

    refuse = false;
    fireEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
    const shown = await screen.findByTestId('backend-client-registered');
    expect(shown.textContent).toContain(created.clientId);
    const posts = writes(calls).filter((call) => call.url === '/api/backendClients');
    expect(posts.at(-1)!.body).toEqual({
      name: 'Python pipeline',
      publicKey: JWKS,
      scopes: ['system/Observation.rs'],
    });
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Register Client' })).toBeNull(),
    );
  });

  it('revokes a client after confirmation', async () => {
    const { calls } = await open({
      'POST /api/backendClients/3/revoke': {
        body: {
          message: BACKEND_CLIENT_MESSAGES.revoked,
          client: { ...ACTIVE, revokedAt: '2026-11-22T09:00:00.000Z' },
        },
      },
    });
    fireEvent.click(screen.getByTestId('backend-client-revoke-3'));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke client?' });
    expect(dialog.textContent).toContain('R pipeline');
    expect(writes(calls)).toEqual([]);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(writes(calls).map((call) => `${call.method} ${call.url}`)).toEqual([
        'POST /api/backendClients/3/revoke',
      ]),
    );
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Revoke client?' })).toBeNull(),
    );
  });
});
