import { useState } from 'react';
import Accordion from '@mui/material/Accordion';
import AccordionDetails from '@mui/material/AccordionDetails';
import AccordionSummary from '@mui/material/AccordionSummary';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { LIMITS, formatFileSize, type ExportJob } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import {
  EXPORT_JOBS_MAX,
  downloadExportUrl,
  useDeleteExportJob,
  useExportJobs,
} from '../api/export-calls';
import { exportErrorMessage } from '../utils/export-error-message';

const STATUS_COLOR = {
  pending: 'default',
  processing: 'info',
  completed: 'success',
  failed: 'error',
} as const;

/**
 * My Exports (device-data spec §2, §4, §9): the latest jobs, 10 a page (the latest 50 can be
 * paged through; decision 0194), with status, progress, file size and actions — Download and
 * Delete for completed jobs, Delete (with the error) for failed ones, Cancel for pending and
 * processing ones. Polls every 10000 ms while open.
 */
export function MyExportsPanel() {
  const [open, setOpen] = useState(true);
  const [wantedPage, setPage] = useState(0);
  const jobs = useExportJobs(open, wantedPage);
  const size = LIMITS.exportJobsListLimit;
  const listed = Math.min(jobs.data?.total ?? 0, EXPORT_JOBS_MAX);
  // A delete can empty the last page: show the last page there is.
  const page = Math.max(0, Math.min(wantedPage, Math.ceil(listed / size) - 1));
  const shown = jobs.data?.data.slice(page * size, (page + 1) * size) ?? [];
  const remove = useDeleteExportJob();
  const notify = useNotify();

  // mutateAsync: mutate's own callbacks are dropped if the panel re-mounts meanwhile.
  const act = (job: ExportJob) =>
    void remove.mutateAsync(job.id).then(
      (answer) => notify(answer.message, 'success'),
      (error: unknown) =>
        notify(exportErrorMessage(error, 'Failed to delete the export.'), 'error'),
    );

  return (
    <Accordion
      expanded={open}
      onChange={(_event, expanded) => setOpen(expanded)}
      data-testid="my-exports"
    >
      <AccordionSummary>
        <Typography variant="h6" component="h2">
          My Exports{jobs.data ? ` (${jobs.data.total})` : ''}
        </Typography>
      </AccordionSummary>
      <AccordionDetails>
        {jobs.isError && (
          <Alert severity="error">
            {exportErrorMessage(jobs.error, 'Failed to load exports. Please try again.')}
          </Alert>
        )}
        {jobs.data && jobs.data.data.length === 0 && (
          <Typography color="text.secondary" data-testid="my-exports-empty">
            No exports yet.
          </Typography>
        )}
        {jobs.data && jobs.data.data.length > 0 && (
          // On a phone the table scrolls inside its own box, not the page (issue 30).
          <TableContainer
            tabIndex={0}
            role="region"
            aria-label="My exports"
            data-testid="my-exports-scroll"
          >
            <Table size="small">
              <TableHead>
                <TableRow>
                  <TableCell>File name</TableCell>
                  <TableCell>Created</TableCell>
                  <TableCell>Date range</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>File size</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {shown.map((job) => (
                  <TableRow
                    key={job.id}
                    data-testid={`export-job-${job.id}`}
                    data-status={job.status}
                  >
                    <TableCell>{job.job_params.fileName}</TableCell>
                    <TableCell>{new Date(job.created_at).toLocaleString()}</TableCell>
                    <TableCell>
                      {job.job_params.startDate} – {job.job_params.endDate}
                    </TableCell>
                    <TableCell sx={{ minWidth: 160 }}>
                      <Stack spacing={0.5}>
                        <Chip
                          size="small"
                          label={job.status}
                          color={STATUS_COLOR[job.status]}
                          data-testid="export-job-status"
                        />
                        {job.status === 'processing' && (
                          <Box>
                            <LinearProgress variant="determinate" value={job.progress} />
                            <Typography variant="caption">{job.progress}%</Typography>
                          </Box>
                        )}
                        {job.status === 'failed' && job.error_message && (
                          <Typography
                            variant="caption"
                            color="error"
                            data-testid="export-job-error"
                          >
                            {job.error_message}
                          </Typography>
                        )}
                      </Stack>
                    </TableCell>
                    <TableCell data-testid="export-job-size">
                      {formatFileSize(job.file_size)}
                    </TableCell>
                    <TableCell align="right">
                      <Stack direction="row" spacing={1} justifyContent="flex-end">
                        {job.status === 'completed' && (
                          <Button
                            size="small"
                            href={downloadExportUrl(job.id)}
                            target="_blank"
                            rel="noopener"
                            data-testid="export-job-download"
                          >
                            Download
                          </Button>
                        )}
                        {(job.status === 'completed' || job.status === 'failed') && (
                          <Button
                            size="small"
                            color="error"
                            onClick={() => act(job)}
                            disabled={remove.isPending}
                            data-testid="export-job-delete"
                          >
                            Delete
                          </Button>
                        )}
                        {(job.status === 'pending' || job.status === 'processing') && (
                          <Button
                            size="small"
                            color="warning"
                            onClick={() => act(job)}
                            disabled={remove.isPending}
                            data-testid="export-job-cancel"
                          >
                            Cancel
                          </Button>
                        )}
                      </Stack>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
        {jobs.data && jobs.data.total > size && (
          <TablePagination
            component="div"
            count={listed}
            page={page}
            rowsPerPage={size}
            rowsPerPageOptions={[size]}
            onPageChange={(_event, next) => setPage(next)}
            data-testid="my-exports-pagination"
          />
        )}
        {jobs.data && jobs.data.total > EXPORT_JOBS_MAX && (
          <Typography variant="caption" color="text.secondary" data-testid="my-exports-latest">
            The latest {EXPORT_JOBS_MAX} of {jobs.data.total} exports are listed.
          </Typography>
        )}
      </AccordionDetails>
    </Accordion>
  );
}
