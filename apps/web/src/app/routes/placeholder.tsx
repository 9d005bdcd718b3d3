import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import ConstructionOutlined from '@mui/icons-material/ConstructionOutlined';

/** Stands in for a page of the route table that is not built yet. */
export function PlaceholderPage({ title, path }: { title: string; path: string }) {
  return (
    <Paper
      variant="outlined"
      data-testid="page-placeholder"
      data-path={path}
      sx={{ p: { xs: 3, sm: 5 }, maxWidth: 720, mx: 'auto' }}
    >
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Chip
          icon={<ConstructionOutlined />}
          label="In development"
          color="warning"
          variant="outlined"
        />
        <Typography variant="h1" component="h1" data-testid="page-title">
          {title}
        </Typography>
        <Typography color="text.secondary">
          This page is coming soon. It is part of the application and will be available in a later
          release.
        </Typography>
      </Stack>
    </Paper>
  );
}
