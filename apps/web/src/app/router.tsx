import type { RouteObject } from 'react-router';
import { ROUTES, type RouteEntry, type RoutePath } from '@trialpulse/shared';
import { FullPageLoader } from '@/components/ui/full-page-loader';
import { DEV_MAILBOX_PATH } from '@/components/dev-mailbox-link';
import { RouteGuard } from './route-guard';
import { SessionRoot } from './session-root';
import { NotAuthorizedPage } from './routes/not-authorized';
import { RouteErrorPage } from './routes/route-error';

type PageRoute = Pick<RouteObject, 'element' | 'lazy'>;

const deviceDataRoutes = () => import('./routes/device-data-routes');

/** The pages built so far; every other path of the route table renders a placeholder. */
const PAGES: Partial<Record<RoutePath, PageRoute>> = {
  '/': {
    // The dashboard shows parts of two other features; features never import each other,
    // so the route composes them.
    lazy: async () => {
      const [{ DashboardPage }, { TeamSelector }, { TrialsTable }] = await Promise.all([
        import('@/features/dashboard/pages/dashboard-page'),
        import('@/features/teams/components/team-selector'),
        import('@/features/trials/components/trials-table'),
      ]);
      return {
        Component: function DashboardRoute() {
          return <DashboardPage teamSelector={<TeamSelector />} trialsTable={<TrialsTable />} />;
        },
      };
    },
  },
  '/DataExport': {
    lazy: async () => ({
      Component: (await import('@/features/data-export/pages/data-export-page')).DataExportPage,
    }),
  },
  '/Trials': {
    lazy: async () => ({
      Component: (await import('@/features/trials/pages/trials-page')).TrialsPage,
    }),
  },
  '/TrialPage': {
    // The trial header (trials feature) with the participants table (participants feature)
    // and its device status column (devices feature) with the 14-day completeness strip.
    lazy: async () => {
      const [
        { TrialPage },
        { ParticipantsTable },
        { deviceStatusColumn },
        { withCompletenessStrip },
      ] = await Promise.all([
        import('@/features/trials/pages/trial-page'),
        import('@/features/participants/components/participants-table'),
        import('@/features/devices/components/device-status-column'),
        import('@/features/completeness/components/with-completeness-strip'),
      ]);
      const deviceStatus = withCompletenessStrip(deviceStatusColumn);
      return {
        Component: function TrialRoute() {
          return (
            <TrialPage
              participantsTable={(trial) => (
                <ParticipantsTable trial={trial} deviceStatus={deviceStatus} />
              )}
            />
          );
        },
      };
    },
  },
  '/ParticipantsPage': {
    // The older participants table, with the same device status column as /TrialPage.
    lazy: async () => {
      const [{ ParticipantsPage }, { deviceStatusColumn }] = await Promise.all([
        import('@/features/participants/pages/participants-page'),
        import('@/features/devices/components/device-status-column'),
      ]);
      return {
        Component: function ParticipantsRoute() {
          return <ParticipantsPage deviceStatus={deviceStatusColumn} />;
        },
      };
    },
  },
  '/AddParticipantPage': {
    lazy: async () => ({
      Component: (await import('@/features/participants/pages/add-participant-page'))
        .AddParticipantPage,
    }),
  },
  '/Participant': {
    // The participant (participants feature) with its device sections (devices feature).
    lazy: async () => {
      const [{ ParticipantPage }, { ParticipantDeviceSection }] = await Promise.all([
        import('@/features/participants/pages/participant-page'),
        import('@/features/devices/components/participant-device-section'),
      ]);
      return {
        Component: function ParticipantRoute() {
          return <ParticipantPage deviceSection={ParticipantDeviceSection} />;
        },
      };
    },
  },
  '/FitbitManageParticipantToken': {
    lazy: async () => ({
      Component: (await import('@/features/devices/pages/manage-device-tokens-page'))
        .FitbitTokensPage,
    }),
  },
  '/OmronManageParticipantToken': {
    lazy: async () => ({
      Component: (await import('@/features/devices/pages/manage-device-tokens-page'))
        .OmronTokensPage,
    }),
  },
  '/ParticipantRaw': {
    lazy: async () => ({
      Component: (await import('@/features/participants/pages/participant-raw-page'))
        .ParticipantRawPage,
    }),
  },
  '/TrialCompleteness': {
    lazy: async () => ({
      Component: (await import('@/features/completeness/pages/trial-completeness-page'))
        .TrialCompletenessPage,
    }),
  },
  '/TrialUsers': {
    lazy: async () => ({
      Component: (await import('@/features/trial-users/pages/trial-users-page')).TrialUsersPage,
    }),
  },
  '/UserTeams': {
    lazy: async () => ({
      Component: (await import('@/features/teams/pages/user-teams-page')).UserTeamsPage,
    }),
  },
  // Team administration (Sys_Admin) is the first tab of the Sys_Admin-only database page;
  // the read-only tables (db-info feature) the second.
  '/DbInfoPage': {
    lazy: async () => {
      const [{ DbInfoPage }, { DatabaseTables }] = await Promise.all([
        import('@/features/team-admin/pages/db-info-page'),
        import('@/features/db-info/components/database-tables'),
      ]);
      return {
        Component: function DbInfoRoute() {
          return <DbInfoPage databaseTables={<DatabaseTables />} />;
        },
      };
    },
  },
  '/DeviceMetricsManager': {
    lazy: async () => ({
      Component: (await import('@/features/device-metrics/pages/device-metrics-manager-page'))
        .DeviceMetricsManagerPage,
    }),
  },
  '/TeamDataRetention': {
    lazy: async () => ({
      Component: (await import('@/features/data-retention/pages/team-data-retention-page'))
        .TeamDataRetentionPage,
    }),
  },
  '/TeamBackendClients': {
    lazy: async () => ({
      Component: (await import('@/features/backend-clients/pages/team-backend-clients-page'))
        .TeamBackendClientsPage,
    }),
  },
  '/LoginPage': {
    lazy: async () => ({
      Component: (await import('@/features/auth/pages/login-page')).LoginPage,
    }),
  },
  '/ChangePwdReqPage': {
    lazy: async () => ({
      Component: (await import('@/features/passwords/pages/change-password-page'))
        .ChangePasswordPage,
    }),
  },
  '/ResetPwdReqPage': {
    lazy: async () => ({
      Component: (await import('@/features/passwords/pages/reset-password-request-page'))
        .ResetPasswordRequestPage,
    }),
  },
  '/ResetPasswordPage': {
    lazy: async () => ({
      Component: (await import('@/features/passwords/pages/reset-password-page')).ResetPasswordPage,
    }),
  },
  '/SignUpApprovalPage': {
    lazy: async () => ({
      Component: (await import('@/features/signup/pages/sign-up-approval-page')).SignUpApprovalPage,
    }),
  },
  '/SignupValidation': {
    lazy: async () => ({
      Component: (await import('@/features/signup/pages/signup-validation-page'))
        .SignupValidationPage,
    }),
  },
  '/SignupPage': {
    lazy: async () => ({
      Component: (await import('@/features/signup/pages/signup-page')).SignupPage,
    }),
  },
  '/ContactUsForm/': {
    lazy: async () => ({
      Component: (await import('@/features/contact/pages/contact-page')).ContactPage,
    }),
  },
  '/ParticipantSignupPage': {
    lazy: async () => ({
      Component: (await import('@/features/participant-accounts/pages/participant-signup-page'))
        .ParticipantSignupPage,
    }),
  },
  '/Participants': {
    lazy: async () => ({
      Component: (await import('@/features/participant-accounts/pages/participant-signup-page'))
        .ParticipantSignupPage,
    }),
  },
  '/ParticipantLoginPage': {
    lazy: async () => ({
      Component: (await import('@/features/participant-accounts/pages/participant-login-page'))
        .ParticipantLoginPage,
    }),
  },
  '/SFASetupPage': {
    lazy: async () => ({
      Component: (await import('@/features/sfa/pages/sfa-setup-page')).SfaSetupPage,
    }),
  },
  '/SFAVerifyPage': {
    lazy: async () => ({
      Component: (await import('@/features/sfa/pages/sfa-verify-page')).SfaVerifyPage,
    }),
  },
  '/SFAValidatePage': {
    lazy: async () => ({
      Component: (await import('@/features/sfa/pages/sfa-validate-page')).SfaValidatePage,
    }),
  },
  '/SFASendCodeViaMsgPage': {
    lazy: async () => ({
      Component: (await import('@/features/sfa/pages/sfa-send-code-page')).SfaSendCodePage,
    }),
  },
  // Device consent: emailed consent links, provider callbacks, staff-started linking.
  '/PAFitbitConsentPage': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/consent-link-page'))
        .FitbitConsentPage,
    }),
  },
  '/OmronConsentPage': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/consent-link-page'))
        .OmronConsentPage,
    }),
  },
  '/fitbit-callback': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/device-callback-page'))
        .FitbitCallbackPage,
    }),
  },
  '/omron-callback': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/device-callback-page'))
        .OmronCallbackPage,
    }),
  },
  '/dexcom-callback': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/dexcom-callback-page'))
        .DexcomCallbackPage,
    }),
  },
  '/FitbitParticipantConsent': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/participant-consent-page'))
        .FitbitParticipantConsentPage,
    }),
  },
  '/DexcomParticipantConsent': {
    lazy: async () => ({
      Component: (await import('@/features/device-consent/pages/participant-consent-page'))
        .DexcomParticipantConsentPage,
    }),
  },
  // Device data (issue 18): one lazily loaded module holds every data route, so the main
  // bundle carries one import for all of them (and never ECharts).
  '/FitbitParticipantDataPage': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).FitbitDataRoute }),
  },
  '/OmronParticipantDataPage': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).OmronDataRoute }),
  },
  '/OmronParticipantOverview': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).OmronOverviewRoute }),
  },
  '/OmronParticipantsDataPage': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).OmronParticipantsRoute }),
  },
  '/ParticipantsDataPage': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).ParticipantsDataRoute }),
  },
  '/ParticipantDataPage': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).ParticipantDataRoute }),
  },
  '/ParticipantOverview': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).ParticipantOverviewRoute }),
  },
  '/ParticipantReport': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).ParticipantReportRoute }),
  },
  '/OmronParticipantDataRaw': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).OmronRawRoute }),
  },
  '/FitbitParticipant1DayData': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).FitbitOneDayRoute }),
  },
  '/FitbitParticipantsDataPage': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).FitbitParticipantsRoute }),
  },
  '/FitbitParticipantOverview': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).FitbitOverviewRoute }),
  },
  '/FitbitParticipantDataForm': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).FitbitDataFormRoute }),
  },
  '/FitbitParticipantDataRaw': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).FitbitRawRoute }),
  },
  '/DexcomParticipantDataRaw': {
    lazy: async () => ({ Component: (await deviceDataRoutes()).DexcomRawRoute }),
  },
  '/not-authorized': { element: <NotAuthorizedPage /> },
};

/**
 * Under the session root (timers): one route per entry of the shared route table plus the
 * catch-all, all under the guard, which also renders the 404 page for paths the table
 * does not know; and, outside the guard, the demo mailbox (not in the spec's table).
 */
export function createAppRoutes(): RouteObject[] {
  return [
    {
      element: <SessionRoot />,
      errorElement: <RouteErrorPage />,
      hydrateFallbackElement: <FullPageLoader />,
      children: [
        {
          path: DEV_MAILBOX_PATH,
          caseSensitive: true,
          lazy: async () => ({
            Component: (await import('./routes/dev-mailbox-route')).DevMailboxRoute,
          }),
        },
        {
          element: <RouteGuard />,
          children: [
            ...(ROUTES as readonly RouteEntry[]).map((route): RouteObject => ({
              path: route.path,
              caseSensitive: true,
              ...(PAGES[route.path as RoutePath] ?? {
                lazy: async () => {
                  const { PlaceholderPage } = await import('./routes/placeholder');
                  return {
                    Component: function PlaceholderRoute() {
                      return <PlaceholderPage title={route.title} path={route.path} />;
                    },
                  };
                },
              }),
            })),
            { path: '*', element: null },
          ],
        },
      ],
    },
  ];
}
