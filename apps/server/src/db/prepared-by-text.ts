import { createHash } from 'node:crypto';

/** What this module needs of a Drizzle select builder: `.prepare(name)`. */
type Preparable<TResult> = {
  prepare(name: string): { execute(): Promise<TResult> } & object;
};

/**
 * Runs a query built at request time (a list page: its sort, filter and scope vary) as a
 * named prepared statement whose name is a hash of its SQL text, so each connection parses
 * and plans each query shape once and later calls only bind and execute (issue 14: planning
 * cost more of PostgreSQL's time than running a list page). Values stay parameters, so the
 * shapes are few: one per list × sort × filter-or-not × scope kind.
 *
 * Drizzle's `prepare(name)` takes the name before it has built the SQL, so the name is set
 * on the node-postgres query configs afterwards (the driver passes them to `pg` as they
 * are; `pg` prepares a name once per connection). On PGlite (one embedded connection) the
 * configs have no name and the query runs as before.
 */
export async function executePreparedByText<TResult>(query: Preparable<TResult>): Promise<TResult> {
  const prepared = query.prepare('pending') as ReturnType<Preparable<TResult>['prepare']> & {
    rawQueryConfig?: { name?: string; text: string };
    queryConfig?: { name?: string };
  };
  const raw = prepared.rawQueryConfig;
  if (raw && 'name' in raw) {
    const name = `q_${createHash('sha1').update(raw.text).digest('base64url')}`;
    raw.name = name;
    if (prepared.queryConfig && 'name' in prepared.queryConfig) prepared.queryConfig.name = name;
  }
  return prepared.execute();
}
