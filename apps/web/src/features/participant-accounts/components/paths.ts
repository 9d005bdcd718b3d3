import type { RoutePath } from '@trialpulse/shared';

export const PARTICIPANT_LOGIN_PATH: RoutePath = '/ParticipantLoginPage';
export const PARTICIPANT_SIGNUP_PATH: RoutePath = '/ParticipantSignupPage';
