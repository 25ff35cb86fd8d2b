// The columns a prepared statement answers with, asked once per connection rather than with
// every execution. `pg` sends a Describe with each statement it executes, and builds the
// result's column parsers again from the RowDescription that answers it: under the mixed load
// that was 3 % of the main thread's time and a seventh of what it allocated. Kept, a read of
// one customer takes 0.62 of the instructions (bench/README.md, "Lighter requests"). A named
// statement's columns are fixed once it is prepared on a connection: PostgreSQL refuses to
// execute it if a schema change would change them ("cached plan must not change result type").
// So the first execution of a named statement on a connection is described as before, and
// later ones on that connection are sent without the Describe, their parsers set up from the
// columns kept. A statement that fails forgets its columns and is described again. Only on
// connections straight to PostgreSQL (./pool.ts, `describeOnce`): behind a transaction pooler
// a statement may be parsed afresh on another server connection, against a changed schema, so
// it is described every time.
import pg from 'pg';

interface Field {
  name: string;
  dataTypeID: number;
  format?: string;
}

interface Connection {
  describe(message: { type: string; name: string }): void;
}

/** Columns of the named statements prepared on each connection, by statement name. */
const shapes = new WeakMap<Connection, Map<string, Field[]>>();

/** Describes each named statement once on `client`'s connection (one straight to PostgreSQL). */
export function describeOnce(client: pg.PoolClient): void {
  const { connection } = client as unknown as { connection: Connection };
  shapes.set(connection, new Map());
}

/** At most this many statements' columns kept per connection. */
const MAX_SHAPES = 4096;

/** The parts of pg's Query this module works with (pg 8: lib/query.js). */
interface QueryInternals {
  name?: string;
  rows?: number;
  /** The statement's columns on the connection it was sent on, once known. */
  _shapes?: Map<string, Field[]>;
  /** The Describe was sent: its answer is kept (set by prepare). */
  _shapeAsked?: boolean;
  /** A RowDescription or the statement's end came back (what was asked is answered). */
  _shapeSeen?: boolean;
  prepare(connection: Connection): void;
  handleRowDescription(message: { fields: Field[] }): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
  handleError(error: unknown, connection: unknown): void;
}

/** The parts of pg's Result (lib/result.js) that addFields sets. */
interface ResultInternals {
  fields: Field[];
  _types: unknown;
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: unknown;
  addFields(fields: Field[]): void;
}

/** The columns of a statement that answers with no rows. */
const NONE: Field[] = [];

/**
 * What addFields builds from the columns `shapes` holds, by their array (an entry for each
 * such array) and the query's type parsers.
 */
const built = new WeakMap<
  Field[],
  Map<unknown, Pick<ResultInternals, '_parsers' | '_prebuiltEmptyResultObject'>>
>();

const query = pg.Query.prototype as unknown as QueryInternals;
const result = pg.Result.prototype as unknown as ResultInternals;

const prepare = query.prepare;
query.prepare = function (this: QueryInternals, connection: Connection) {
  const kept = shapes.get(connection);
  if (kept === undefined || !this.name || this.rows) {
    prepare.call(this, connection);
    return;
  }
  this._shapes = kept;
  const known = kept.get(this.name);
  if (known === undefined) {
    this._shapeAsked = true;
    prepare.call(this, connection);
    return;
  }
  // Before any row can arrive: the rows of this statement come without a RowDescription.
  if (known !== NONE) this.handleRowDescription({ fields: known });
  const describe = connection.describe;
  connection.describe = () => undefined;
  try {
    prepare.call(this, connection);
  } finally {
    connection.describe = describe;
  }
};

/** Keeps the columns of the first answer to a statement that was described. */
function keep(query: QueryInternals, fields: Field[]): void {
  if (query._shapeAsked && !query._shapeSeen && query._shapes!.size < MAX_SHAPES) {
    query._shapes!.set(query.name!, fields);
    if (fields !== NONE) built.set(fields, new Map());
  }
  query._shapeSeen = true;
}

const handleRowDescription = query.handleRowDescription;
query.handleRowDescription = function (this: QueryInternals, message: { fields: Field[] }) {
  keep(this, message.fields);
  handleRowDescription.call(this, message);
};

const handleCommandComplete = query.handleCommandComplete;
query.handleCommandComplete = function (this: QueryInternals, message, connection) {
  keep(this, NONE);
  handleCommandComplete.call(this, message, connection);
};

const handleError = query.handleError;
query.handleError = function (this: QueryInternals, error, connection) {
  if (this._shapes !== undefined) this._shapes.delete(this.name!);
  return handleError.call(this, error, connection);
};

const addFields = result.addFields;
result.addFields = function (this: ResultInternals, fields: Field[]) {
  const byTypes = built.get(fields);
  const kept = byTypes?.get(this._types);
  if (kept === undefined) {
    addFields.call(this, fields);
    byTypes?.set(this._types, {
      _parsers: this._parsers,
      _prebuiltEmptyResultObject: this._prebuiltEmptyResultObject,
    });
    return;
  }
  this.fields = fields;
  if (fields.length > 0) this._parsers = kept._parsers;
  this._prebuiltEmptyResultObject = kept._prebuiltEmptyResultObject;
};
