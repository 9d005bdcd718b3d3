// ESLint rule `trialpulse/table-writes`: a module writes only the tables it owns
// (docs/architecture.md "Tables and their owners"; TABLE_OWNERS in eslint.config.js).
//
// Reads are the import rule's business (`no-restricted-imports`: a table may be imported only
// by its owner and the listed exceptions). This rule looks at what the code does with a table
// it may import: `q.insert(t)`, `q.update(t)`, `q.delete(t)` and raw SQL
// (`sql\`INSERT INTO participant_devices …\``, `sql\`UPDATE ${participantDevices} …\``) are
// refused unless the file's owner owns the table or holds a listed write exception.
//
// Options: { owners: { [owner]: tableNames[] }, writeExceptions: { [owner]: tableNames[] } }.
// The owner of a file is `modules/<name>` → `<name>`; elsewhere under the server's src the
// longest TABLE_OWNERS or write-exception key that prefixes its path (`lib/audit`,
// `plugins/rate-limit-store`, `jobs/maintenance`), else the file's folder (`jobs`, `plugins`, `cli`), which owns no table.

const SCHEMA_SOURCE = /(^|\/)db\/schema(\/[^/]+)?$/;
const WRITE_METHODS = new Set(['insert', 'update', 'delete']);
const SQL_WRITE = /\b(insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?/gi;
const SQL_WRITE_BEFORE_TABLE = /\b(insert\s+into|update|delete\s+from)\s*"?$/i;

const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The owner key of a file (see above), or null outside the server's product code. */
export function ownerOf(filename, owners, writeExceptions = {}) {
  const normalized = filename.replaceAll('\\', '/');
  const at = normalized.indexOf('apps/server/src/');
  if (at < 0) return null;
  const relative = normalized.slice(at + 'apps/server/src/'.length).replace(/\.[cm]?[tj]sx?$/, '');
  const module = /^modules\/([^/]+)\//.exec(relative);
  if (module) return module[1];
  const keys = [...Object.keys(owners), ...Object.keys(writeExceptions)]
    .filter((key) => key.includes('/') && (relative === key || relative.startsWith(`${key}/`)))
    .sort((a, b) => b.length - a.length);
  if (keys.length > 0) return keys[0];
  return relative.includes('/') ? relative.slice(0, relative.indexOf('/')) : relative;
}

export const tableWritesRule = {
  meta: {
    type: 'problem',
    docs: { description: 'A module inserts, updates or deletes only the tables it owns.' },
    schema: [
      {
        type: 'object',
        properties: { owners: { type: 'object' }, writeExceptions: { type: 'object' } },
        additionalProperties: false,
      },
    ],
    messages: {
      notOwner:
        "'{{owner}}' {{verb}}s table '{{table}}', which belongs to '{{tableOwner}}' (TABLE_OWNERS in eslint.config.js): call that module's service.",
    },
  },
  create(context) {
    const { owners = {}, writeExceptions = {} } = context.options[0] ?? {};
    const owner = ownerOf(context.filename, owners, writeExceptions);
    if (!owner) return {};
    const ownerOfTable = new Map();
    for (const [key, tables] of Object.entries(owners))
      for (const table of tables) ownerOfTable.set(table, key);
    const bySqlName = new Map([...ownerOfTable.keys()].map((table) => [snake(table), table]));
    const allowed = new Set([...(owners[owner] ?? []), ...(writeExceptions[owner] ?? [])]);
    /** Local name → table name, for tables imported from db/schema. */
    const schemaImports = new Map();

    const check = (node, table, verb) => {
      if (!ownerOfTable.has(table) || allowed.has(table)) return;
      context.report({
        node,
        messageId: 'notOwner',
        data: { owner, verb, table, tableOwner: ownerOfTable.get(table) },
      });
    };
    const verbOf = (keyword) => keyword.split(/\s+/)[0].toLowerCase();

    return {
      ImportDeclaration(node) {
        if (!SCHEMA_SOURCE.test(String(node.source.value))) return;
        for (const specifier of node.specifiers) {
          if (specifier.type === 'ImportSpecifier') {
            const imported =
              specifier.imported.type === 'Identifier'
                ? specifier.imported.name
                : specifier.imported.value;
            schemaImports.set(specifier.local.name, imported);
          }
        }
      },
      CallExpression(node) {
        const callee = node.callee;
        if (
          callee.type !== 'MemberExpression' ||
          callee.computed ||
          callee.property.type !== 'Identifier'
        )
          return;
        if (!WRITE_METHODS.has(callee.property.name)) return;
        const [first] = node.arguments;
        if (first?.type !== 'Identifier' || !schemaImports.has(first.name)) return;
        check(node, schemaImports.get(first.name), callee.property.name);
      },
      TaggedTemplateExpression(node) {
        const tag = node.tag;
        const tagName =
          tag.type === 'Identifier'
            ? tag.name
            : tag.type === 'MemberExpression' && tag.object.type === 'Identifier'
              ? tag.object.name
              : null;
        if (tagName !== 'sql') return;
        const { quasis, expressions } = node.quasi;
        quasis.forEach((quasi, index) => {
          const text = quasi.value.cooked ?? quasi.value.raw;
          for (const match of text.matchAll(SQL_WRITE)) {
            const table = bySqlName.get(match[2].toLowerCase());
            if (table) check(node, table, verbOf(match[1]));
          }
          const before = SQL_WRITE_BEFORE_TABLE.exec(text);
          const expression = expressions[index];
          if (before && expression?.type === 'Identifier' && schemaImports.has(expression.name)) {
            check(node, schemaImports.get(expression.name), verbOf(before[1]));
          }
        });
      },
    };
  },
};

/** The plugin eslint.config.js registers as `trialpulse`. */
export const tableWritesPlugin = { rules: { 'table-writes': tableWritesRule } };
