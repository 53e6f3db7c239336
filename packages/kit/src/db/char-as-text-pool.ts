import pg from 'pg';

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type Fields = { fields?: { dataTypeID: number }[] };

function relabelCharColumns<T>(result: T): T {
  const results = Array.isArray(result) ? result : [result];
  for (const r of results as Fields[]) {
    for (const field of r?.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
  }
  return result;
}

/**
 * pg.Client reporting PostgreSQL's internal "char" columns as text: @prisma/adapter-pg
 * cannot map "char" (OID 18), which the schema engine's catalog queries return.
 */
class CharAsTextClient extends pg.Client {}

const baseQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(CharAsTextClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: pg.Client,
  ...args: unknown[]
) {
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : relabelCharColumns(res));
    return baseQuery.apply(this, args);
  }
  const out = baseQuery.apply(this, args);
  return out instanceof Promise ? out.then(relabelCharColumns) : out;
};

export function charAsTextPool(connectionString: string, max = 2): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, Client: CharAsTextClient });
  // an idle connection ended by the server is dropped; the query that needs one opens another
  pool.on('error', () => undefined);
  return pool;
}
