import { baseHandlers, errorBody, makeUser, mockApi, type RecordedCall } from '@/testing/mock-api';

type Handlers = Parameters<typeof mockApi>[0];
type Status = string | 'signed-out';

export const QR_IMAGE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const KEY = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/**
 * A server whose session status the handlers can change, as the real second-factor calls
 * do: pending statuses answer 403 with the status, Authorized answers the user.
 */
export function mockSfaApi(
  initial: Status,
  handlers: (server: SfaServer) => Handlers = () => ({}),
) {
  const server: SfaServer = { status: initial };
  const currentUser = () => {
    if (server.status === 'signed-out') {
      return { status: 401, body: errorBody('Not signed in', false, 'UNAUTHENTICATED') };
    }
    if (server.status === 'Authorized') {
      return { body: { message: 'ok', user: makeUser({ authStatus: 'Authorized' }) } };
    }
    return {
      status: 403,
      body: errorBody('Second factor required', false, 'FORBIDDEN', { authStatus: server.status }),
    };
  };
  // The app's session probe (decision 0195): 200 at every status, the user carries it.
  const sessionStatus = () =>
    server.status === 'signed-out'
      ? { body: { signedIn: false, user: null } }
      : { body: { signedIn: true, user: makeUser({ authStatus: server.status }) } };
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-out' }),
    'GET /api/auth/session': sessionStatus,
    'GET /api/auth/login/': currentUser,
    'GET /api/auth/user': currentUser,
    'POST /api/auth/refreshToken': { body: { message: 'Token refreshed' } },
    'GET /api/auth/isSfaAlreadyValidated': () => ({
      body: { success: server.status === 'Authorized' },
    }),
    ...handlers(server),
  });
  return { ...api, server };
}

export type SfaServer = { status: Status };

export const CODE_INVALID = {
  status: 400,
  body: errorBody('The code is not correct. Please try again.', true, 'SFA_CODE_INVALID'),
};

export const ACCOUNT_LOCKED = {
  status: 401,
  body: errorBody('Account locked due to too many failed attempts', true, 'ACCOUNT_LOCKED'),
};

/** Calls to one endpoint. */
export function callsTo(calls: RecordedCall[], method: string, url: string): RecordedCall[] {
  return calls.filter((call) => call.method === method && call.url === url);
}

/** The spec's §5 cases: input → message. */
export const CODE_CASES: [string, string][] = [
  ['', 'SFA Code is required'],
  ['12a456', 'Code must be only digits'],
  ['12345', 'Code must be exactly 6 digits'],
  ['1234567', 'Code must be exactly 6 digits'],
];
