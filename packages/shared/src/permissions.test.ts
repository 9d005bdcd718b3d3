import { describe, expect, it } from 'vitest';
import { ACTIONS, ACTION_ROLES, can } from './permissions';

/** Access spec §6 (buttons and calls), written out independently of ACTION_ROLES. */
const SPEC: Record<string, readonly string[]> = {
  'trial.create': ['Sys_Admin', 'Admin'],
  'trial.delete': ['Sys_Admin', 'Admin'],
  'trial.update': ['Sys_Admin', 'Admin', 'User'],
  'trialUsers.manage': ['Sys_Admin', 'Admin'],
  'participant.create': ['Sys_Admin', 'Admin', 'User'],
  'participant.update': ['Sys_Admin', 'Admin', 'User'],
  'participant.delete': ['Sys_Admin', 'Admin', 'User'],
  'participant.view': ['Sys_Admin', 'Admin', 'User', 'Viewer'],
  'participant.viewRaw': ['Sys_Admin'],
  'deviceError.viewData': ['Sys_Admin'],
  // The navbar text lists it under Sys_Admin, the route table allows Admin: decision 0032.
  'nav.dataManagement': ['Sys_Admin', 'Admin'],
  'export.create': ['Sys_Admin', 'Admin', 'User'],
  'metrics.manage': ['Sys_Admin'],
  // POST /fitbitDataLocalDB/{id}: a call of the Fitbit data page, open to every role (decision 0132).
  'data.recompute': ['Sys_Admin', 'Admin', 'User', 'Viewer'],
};

describe('action → roles table', () => {
  it('gives the spec roles for the actions the spec names', () => {
    for (const [action, roles] of Object.entries(SPEC)) {
      expect([action, ACTION_ROLES[action as keyof typeof ACTION_ROLES]]).toEqual([action, roles]);
    }
  });

  it('lets Sys_Admin do everything and a missing or unknown role nothing', () => {
    for (const action of ACTIONS) {
      expect(can('Sys_Admin', action)).toBe(true);
      for (const role of [null, undefined, '', 'Owner']) expect(can(role, action)).toBe(false);
    }
  });

  it('answers by the table for the other roles', () => {
    expect(can('Viewer', 'trial.view')).toBe(true);
    expect(can('Viewer', 'participant.update')).toBe(false);
    expect(can('User', 'trial.update')).toBe(true);
    expect(can('User', 'trial.delete')).toBe(false);
    expect(can('Admin', 'deviceToken.manage')).toBe(true);
    expect(can('Admin', 'sysadmin.view')).toBe(false);
  });
});
