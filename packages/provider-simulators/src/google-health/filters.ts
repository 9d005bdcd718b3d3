import { DAY_MS, HOUR_MS, civilMsOfDate, dayNumberOf } from '../common/civil-time';
import { type DataTypeSpec, findDataTypeByFilterName } from './catalog';
import { DOMAIN, errorInfo, googleError, type GoogleErrorBody } from './errors';

/**
 * The AIP-160 subset the Google Health API accepts on list / reconcile (facts §5): only `>=`
 * and `<`, quoted literals, clauses joined by AND (sleep also OR, which binds tighter than
 * AND in AIP-160), and per-type members. The result is an AND of OR-groups.
 */

export type FilterValueKind = 'physical' | 'civil' | 'date';

export interface FilterComparison {
  /** What the member compares: physical UTC ms, civil ms, or a day number. */
  kind: FilterValueKind;
  op: '>=' | '<';
  value: number;
}

/** AND of OR-groups. An empty list matches everything. */
export type Filter = FilterComparison[][];

/** The time values of a point that filters compare against. */
export interface FilterablePoint {
  physicalMs: number;
  civilMs: number;
  dayNumber: number;
}

export function parseFilter(
  text: string | undefined,
  spec: DataTypeSpec,
): { filter: Filter } | { error: GoogleErrorBody } {
  if (text === undefined || text.trim() === '') return { filter: [] };
  const tokens = tokenize(text);
  if ('error' in tokens) return syntaxError(tokens.error, tokens.column);
  const filter: Filter = [];
  let group: FilterComparison[] = [];
  let i = 0;
  while (i < tokens.list.length) {
    const member = tokens.list[i];
    const op = tokens.list[i + 1];
    const literal = tokens.list[i + 2];
    if (!member || member.type !== 'ident')
      return syntaxError('Expected a field name', member?.column ?? text.length + 1);
    const memberError = checkMember(member.text, member.column, spec);
    if (memberError) return { error: memberError };
    if (!op || op.type !== 'op')
      return syntaxError('Expected a comparison operator', op?.column ?? text.length + 1);
    if (op.text !== '>=' && op.text !== '<') {
      return syntaxError(`Operator '${op.text}' is not supported; use '>=' or '<'`, op.column);
    }
    if (!literal || literal.type !== 'string') {
      return syntaxError('Expected a double-quoted literal', literal?.column ?? text.length + 1);
    }
    const kind = memberKind(member.text);
    const value = parseLiteral(kind, literal.text);
    if (value === undefined) {
      return {
        error: filterError(
          'INVALID_FILTER_FORMAT',
          `Invalid ${kind === 'date' ? 'date' : kind === 'civil' ? 'civil time' : 'timestamp'} literal "${literal.text}" for member '${member.text}'. (at line 1, column ${literal.column})`,
        ),
      };
    }
    group.push({ kind, op: op.text, value });
    i += 3;
    const joiner = tokens.list[i];
    if (!joiner) break;
    if (joiner.type !== 'keyword') return syntaxError(`Unexpected '${joiner.text}'`, joiner.column);
    if (joiner.text === 'OR') {
      if (spec.record !== 'sleep')
        return syntaxError('OR is supported only for sleep filters', joiner.column);
    } else {
      filter.push(group);
      group = [];
    }
    i++;
    if (i >= tokens.list.length) return syntaxError(`Dangling ${joiner.text}`, joiner.column);
  }
  if (group.length) filter.push(group);
  return { filter };
}

export function matchesFilter(filter: Filter, point: FilterablePoint): boolean {
  return filter.every((group) => group.some((comparison) => compare(comparison, point)));
}

/**
 * A UTC range [from, to) that contains every matching point's filtered time, used to decide
 * which days to generate. Civil and date bounds are widened by the largest UTC offsets.
 */
export function filterEnvelope(filter: Filter): { from: number; to: number } {
  let from = Number.NEGATIVE_INFINITY;
  let to = Number.POSITIVE_INFINITY;
  for (const group of filter) {
    let groupFrom = Number.POSITIVE_INFINITY;
    let groupTo = Number.NEGATIVE_INFINITY;
    for (const comparison of group) {
      const [lo, hi] = comparisonRange(comparison);
      groupFrom = Math.min(groupFrom, lo);
      groupTo = Math.max(groupTo, hi);
    }
    from = Math.max(from, groupFrom);
    to = Math.min(to, groupTo);
  }
  return { from, to };
}

// ---------------------------------------------------------------------------------------------

type Token =
  | { type: 'ident'; text: string; column: number }
  | { type: 'op'; text: string; column: number }
  | { type: 'string'; text: string; column: number }
  | { type: 'keyword'; text: 'AND' | 'OR'; column: number };

function tokenize(text: string): { list: Token[] } | { error: string; column: number } {
  const list: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    const column = i + 1;
    if (/\s/.test(char)) {
      i++;
    } else if (char === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) return { error: 'Unterminated string literal', column };
      list.push({ type: 'string', text: text.slice(i + 1, end), column });
      i = end + 1;
    } else if (/[<>=!:]/.test(char)) {
      const op = /^(>=|<=|!=|>|<|=|:)/.exec(text.slice(i))?.[0] ?? char;
      list.push({ type: 'op', text: op, column });
      i += op.length;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_.-]*/.exec(text.slice(i))?.[0] ?? char;
      if (word === 'AND' || word === 'OR') list.push({ type: 'keyword', text: word, column });
      else list.push({ type: 'ident', text: word, column });
      i += word.length;
    } else {
      return { error: `Unexpected character '${char}'`, column };
    }
  }
  return { list };
}

function checkMember(
  member: string,
  column: number,
  spec: DataTypeSpec,
): GoogleErrorBody | undefined {
  const dot = member.indexOf('.');
  const prefix = dot < 0 ? member : member.slice(0, dot);
  const rest = dot < 0 ? '' : member.slice(dot + 1);
  if (prefix !== spec.filterName) {
    const other = findDataTypeByFilterName(prefix);
    return filterError(
      'INVALID_DATA_POINT_FILTER',
      `Member '${member}' does not belong to the data type '${spec.filterName}'. (at line 1, column ${column})`,
      other
        ? 'INVALID_DATA_POINT_FILTER_COLLECTION_MISMATCH'
        : 'INVALID_DATA_POINT_FILTER_DATA_TYPE_RESTRICTION',
    );
  }
  if (!spec.filterMembers.includes(rest)) {
    return filterError(
      'INVALID_DATA_POINT_FILTER',
      `Member '${member}' is not supported for filtering. (at line 1, column ${column})`,
      'INVALID_DATA_POINT_FILTER_DATA_TYPE_MEMBER',
    );
  }
  return undefined;
}

function memberKind(member: string): FilterValueKind {
  if (member.endsWith('.date')) return 'date';
  return /civil/.test(member) ? 'civil' : 'physical';
}

function parseLiteral(kind: FilterValueKind, text: string): number | undefined {
  if (kind === 'date') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
    try {
      return dayNumberOf(text);
    } catch {
      return undefined;
    }
  }
  if (kind === 'physical') {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text))
      return undefined;
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? ms : undefined;
  }
  const match = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/.exec(
    text,
  );
  if (!match) return undefined;
  try {
    const [, date, hh = '0', mm = '0', ss = '0', frac = '0'] = match;
    const [h, m, s] = [Number(hh), Number(mm), Number(ss)];
    if (h > 23 || m > 59 || s > 59) return undefined;
    return (
      civilMsOfDate(date ?? '') +
      h * HOUR_MS +
      m * 60_000 +
      s * 1000 +
      Math.floor(Number(`0.${frac}`) * 1000)
    );
  } catch {
    return undefined;
  }
}

function compare(comparison: FilterComparison, point: FilterablePoint): boolean {
  const actual =
    comparison.kind === 'physical'
      ? point.physicalMs
      : comparison.kind === 'civil'
        ? point.civilMs
        : point.dayNumber;
  return comparison.op === '>=' ? actual >= comparison.value : actual < comparison.value;
}

/** UTC range a single comparison can match, widened for offsets (−12 h … +14 h). */
function comparisonRange(comparison: FilterComparison): [number, number] {
  const value = comparison.kind === 'date' ? comparison.value * DAY_MS : comparison.value;
  const lo = comparison.kind === 'physical' ? value : value - 14 * HOUR_MS;
  const hi = comparison.kind === 'physical' ? value : value + 12 * HOUR_MS;
  return comparison.op === '>=' ? [lo, Number.POSITIVE_INFINITY] : [Number.NEGATIVE_INFINITY, hi];
}

function syntaxError(message: string, column: number): { error: GoogleErrorBody } {
  return {
    error: filterError(
      'INVALID_DATA_POINT_FILTER_SYNTAX',
      `${message}. (at line 1, column ${column})`,
    ),
  };
}

function filterError(
  reason: string,
  description: string,
  detailedReason?: string,
): GoogleErrorBody {
  const detail = detailedReason ?? reason;
  return googleError(400, 'INVALID_ARGUMENT', `Invalid data point filter: ${detail}.`, [
    errorInfo(reason, DOMAIN, { detailedReasons: detail }),
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'filter', description }],
    },
  ]);
}
