import { useSearchParams } from 'react-router';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { SYS_ADMIN_TABLES, type SysAdminTableKey } from '@trialpulse/shared';
import { SysAdminTable } from './sys-admin-table';

const isTableKey = (value: string | null): value is SysAdminTableKey =>
  SYS_ADMIN_TABLES.some((table) => table.key === value);

/**
 * The ten read-only tables of the Database Info page; one shown at a time (a table per
 * endpoint), chosen from a list and kept in `?table=`.
 */
export function DatabaseTables() {
  const [params, setParams] = useSearchParams();
  const requested = params.get('table');
  const tableKey: SysAdminTableKey = isTableKey(requested) ? requested : 'teams';
  return (
    <Stack spacing={2} data-testid="database-tables">
      <TextField
        select
        label="Table"
        value={tableKey}
        onChange={(event) =>
          setParams(
            (current) => {
              const next = new URLSearchParams(current);
              next.set('table', event.target.value);
              return next;
            },
            { replace: true },
          )
        }
        sx={{ maxWidth: 420 }}
        slotProps={{
          select: { SelectDisplayProps: { 'data-testid': 'database-table-select' } as object },
        }}
      >
        {SYS_ADMIN_TABLES.map((table) => (
          <MenuItem
            key={table.key}
            value={table.key}
            data-testid={`database-table-option-${table.key}`}
          >
            {table.title}
          </MenuItem>
        ))}
      </TextField>
      {/* A new key per table: its paging, sort and filter start fresh. */}
      <SysAdminTable key={tableKey} tableKey={tableKey} />
    </Stack>
  );
}
