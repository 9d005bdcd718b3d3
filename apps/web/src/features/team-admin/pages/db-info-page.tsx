import { useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
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

/** The read-only tables of device-data spec §2 "Database Info page", built in a later issue. */
const READ_ONLY_TABLES = [
  'Team Table',
  'Team Allowed Brands',
  'Team Supported Devices',
  'Team-User Mappings',
  'Team Devices Data Storage Settings',
  'User Table',
  'Trial Table',
  'Participant Table',
  'Participant Devices Table',
  'Global Device Catalog Table',
];

/**
 * /DbInfoPage (Sys_Admin): its first tab administers the teams (the spec is silent on team
 * administration, so it lives here); the read-only tables follow in a later issue. The
 * open tab is kept in `?tab=`.
 */
export function DbInfoPage() {
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
        {tab === 'teams' ? (
          <TeamsAdminTable />
        ) : (
          <Alert severity="info" data-testid="db-tables-coming-soon">
            The read-only database tables are coming soon:
            <List dense>
              {READ_ONLY_TABLES.map((name) => (
                <ListItem key={name} sx={{ py: 0 }}>
                  {name}
                </ListItem>
              ))}
            </List>
          </Alert>
        )}
      </Box>
    </Stack>
  );
}
