import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

/** The status bar of unsaved changes with Save and Cancel (device-data spec §2). */
export function UnsavedStatusBar({
  counts,
  saving,
  onSave,
  onCancel,
}: {
  counts: { label: string; value: number }[];
  saving: boolean;
  onSave: () => void;
  onCancel: () => void;
}) {
  const total = counts.reduce((sum, count) => sum + count.value, 0);
  return (
    <Paper variant="outlined" sx={{ p: 1.5 }} data-testid="unsaved-status-bar">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: 'center' }}>
        <Typography sx={{ flexGrow: 1 }} data-testid="unsaved-counts">
          {total === 0
            ? 'No unsaved changes'
            : `Unsaved changes: ${counts
                .filter((count) => count.value > 0)
                .map((count) => `${count.value} ${count.label}`)
                .join(', ')}`}
        </Typography>
        <Button onClick={onCancel} disabled={total === 0 || saving} data-testid="cancel-changes">
          Cancel
        </Button>
        <Button
          variant="contained"
          onClick={onSave}
          disabled={total === 0 || saving}
          data-testid="save-changes"
        >
          {saving ? 'Saving...' : 'Save'}
        </Button>
      </Stack>
    </Paper>
  );
}
