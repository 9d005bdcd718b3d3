import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { TeamsAdminTable } from '../components/teams-admin-table';

const TABS = [
  { value: 'teams', label: 'Teams' },
  { value: 'tables', label: 'Database tables' },
] as const;
type TabValue = (typeof TABS)[number]['value'];

/**
 * /DbInfoPage (Sys_Admin): its first tab administers the teams (the spec is silent on team
 * administration, so it lives here); the second holds the ten read-only tables, which the
 * route passes in (another feature). The open tab is kept in `?tab=`.
 */
export function DbInfoPage({ databaseTables }: { databaseTables: ReactNode }) {
  const [params, setParams] = useSearchParams();
  const tab: TabValue = params.get('tab') === 'tables' ? 'tables' : 'teams';

  return (
    <Stack spacing={3} data-testid="db-info-page">
      <Typography variant="h1" component="h1" data-testid="page-title">
        Sys Director Info Page
      </Typography>
      <Box sx={{ borderBottom: 1, borderColor: 'divider' }}>
        <Tabs
          value={tab}
          onChange={(_event, value: TabValue) => setParams({ tab: value }, { replace: true })}
          aria-label="Database info sections"
        >
          {TABS.map((entry) => (
            <Tab
              key={entry.value}
              value={entry.value}
              label={entry.label}
              id={`db-info-tab-${entry.value}`}
              aria-controls={`db-info-panel-${entry.value}`}
              data-testid={`db-info-tab-${entry.value}`}
            />
          ))}
        </Tabs>
      </Box>
      <Box role="tabpanel" id={`db-info-panel-${tab}`} aria-labelledby={`db-info-tab-${tab}`}>
        {tab === 'teams' ? <TeamsAdminTable /> : databaseTables}
      </Box>
    </Stack>
  );
}
