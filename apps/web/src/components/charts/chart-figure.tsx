import { useCallback, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ECharts } from 'echarts/core';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { EChart } from './echart';
import type { EChartCanvasProps } from './echart-canvas';
import { chartTable, withAria, zoomAfterKey } from './chart-data';

const TABLE_PAGE = 50;

/**
 * A chart everyone can use (issue 30, decision 0171): ECharts' accessible summary (`aria`,
 * the series' span, lowest, highest and mean), keyboard zoom and pan when the chart has a
 * zoom (`+`/`-`, arrow keys, `0` for everything) and a "Show as table" view of the same
 * series, 50 rows a page.
 */
export function ChartFigure({
  dataOption,
  ...props
}: EChartCanvasProps & {
  /**
   * The values the summary and the table read when the drawn option encodes them (the AGP's
   * bands are stacked differences): the same axes with one plain series per value.
   */
  dataOption?: EChartCanvasProps['option'];
}) {
  const { option, ariaLabel, testId, onChart } = props;
  const [asTable, setAsTable] = useState(false);
  const chart = useRef<ECharts | null>(null);
  const described = useMemo(
    () => ({ ...option, aria: withAria(dataOption ?? option, ariaLabel).aria }),
    [option, dataOption, ariaLabel],
  );
  const zoomable = option.dataZoom !== undefined;
  const keep = useCallback(
    (instance: ECharts) => {
      chart.current = instance;
      onChart?.(instance);
    },
    [onChart],
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const instance = chart.current;
    if (!instance || !zoomable) return;
    const zoom = (instance.getOption() as { dataZoom?: Array<{ start?: number; end?: number }> })
      .dataZoom?.[0];
    const next = zoomAfterKey(event.key, { start: zoom?.start ?? 0, end: zoom?.end ?? 100 });
    if (!next) return;
    event.preventDefault();
    instance.dispatchAction({ type: 'dataZoom', ...next });
  };

  return (
    <Box data-testid={testId && `${testId}-figure`}>
      <Box
        tabIndex={zoomable ? 0 : undefined}
        role={zoomable ? 'group' : undefined}
        aria-label={
          zoomable
            ? `${ariaLabel}. Plus and minus zoom, the arrow keys pan, 0 shows everything.`
            : undefined
        }
        onKeyDown={onKeyDown}
        sx={{
          '&:focus-visible': {
            outline: '2px solid',
            outlineColor: 'primary.main',
            outlineOffset: 2,
          },
        }}
      >
        <EChart {...props} option={described} onChart={keep} />
      </Box>
      <Box
        sx={{
          display: 'flex',
          justifyContent: 'flex-end',
          gap: 1,
          alignItems: 'center',
          displayPrint: 'none',
        }}
      >
        {zoomable && (
          <Typography variant="caption" color="text.secondary">
            Keyboard: focus the chart, then + / − to zoom, ← / → to pan, 0 to reset.
          </Typography>
        )}
        <Button
          size="small"
          sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
          aria-expanded={asTable}
          onClick={() => setAsTable((shown) => !shown)}
          data-testid={testId && `${testId}-table-toggle`}
        >
          {asTable ? 'Hide table' : 'Show as table'}
        </Button>
      </Box>
      {asTable && (
        <ChartDataTable option={dataOption ?? option} label={ariaLabel} testId={testId} />
      )}
    </Box>
  );
}

function ChartDataTable({
  option,
  label,
  testId,
}: {
  option: EChartCanvasProps['option'];
  label: string;
  testId?: string;
}) {
  const table = useMemo(() => chartTable(option), [option]);
  const [page, setPage] = useState(0);
  const rows = table.rows.slice(page * TABLE_PAGE, (page + 1) * TABLE_PAGE);
  return (
    <Box>
      <TableContainer sx={{ maxHeight: 420 }}>
        <Table
          size="small"
          stickyHeader
          aria-label={`${label} as a table`}
          data-testid={testId && `${testId}-table`}
        >
          <TableHead>
            <TableRow>
              {table.columns.map((column) => (
                <TableCell key={column.key}>{column.header}</TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((row, index) => (
              <TableRow key={index}>
                {table.columns.map((column) => (
                  <TableCell key={column.key}>{row[column.key] ?? '—'}</TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      {table.rows.length > TABLE_PAGE && (
        <TablePagination
          component="div"
          count={table.rows.length}
          page={page}
          rowsPerPage={TABLE_PAGE}
          rowsPerPageOptions={[TABLE_PAGE]}
          onPageChange={(_, next) => setPage(next)}
        />
      )}
    </Box>
  );
}
