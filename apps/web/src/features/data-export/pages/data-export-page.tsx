import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ExportForm } from '../components/export-form';
import { MyExportsPanel } from '../components/my-exports-panel';

/** /DataExport (Sys_Admin, Admin, User): the Batch Data Export page with My Exports. */
export function DataExportPage() {
  return (
    <Stack spacing={3} data-testid="data-export-page">
      <Typography variant="h1" component="h1">
        Batch Data Export
      </Typography>
      <ExportForm />
      <MyExportsPanel />
    </Stack>
  );
}
