// A third Parquet reader for the Parquet tests: polars (its own Rust Parquet
// reader, neither DuckDB's nor arrow-rs's), through the npm package
// nodejs-polars, installed by tests/parquet/duckdb-setup.sh.
//
//   node polars.mjs dump OUT.jsonl FILE...
//       every row of every Parquet file, in duck.mjs's dump format (one line
//       per file: {"file", "columns": [[name, type]...], "rows": [[...]...]}):
//       timestamps as epoch nanoseconds and 64-bit integers as text, binary
//       values as hex (column type "BLOB"), NaN and infinities as "nan",
//       "inf", "-inf", lists as arrays, groups as objects.  A file the
//       reader refuses: {"file", "error"}.
//   node polars.mjs fleet GLOB COLUMN[,COLUMN...]
//       docs/formats/parquet.md's polars query, as nodejs-polars spells it:
//       scan every file of GLOB as one table and count the rows per
//       ("trace", COLUMN...), most first; prints the rows as JSON (64-bit
//       integers as text).
import { createRequire } from 'node:module';
import { writeFileSync, appendFileSync } from 'node:fs';
const require = createRequire(process.env.TIO_NODE_MODULES + '/');
const pl = require('nodejs-polars');

// A value as toRecords gives it, as a plain JSON value.
function value(x) {
	if (x === null || x === undefined) return null;
	if (typeof x === 'bigint') return x.toString();
	if (typeof x === 'number')
		return Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : x;
	if (typeof x === 'boolean' || typeof x === 'string') return x;
	if (Array.isArray(x)) return x.map(value);
	if (x instanceof Date) throw new Error('polars.mjs: a date value (a timestamp not cast)');
	if (typeof x === 'object') {
		const o = {};
		for (const [k, v] of Object.entries(x)) o[k] = value(v);
		return o;
	}
	throw new Error(`polars.mjs: no conversion for ${typeof x}`);
}

// A type with its 64-bit integers (in lists and groups too) as text; t itself when it has none.
function asText(t) {
	switch (t.variant) {
		case 'Int64':
		case 'UInt64':
			return pl.Utf8;
		case 'List': {
			const e0 = Array.isArray(t.__inner) ? t.__inner[0] : t.__inner, e = asText(e0);
			return e === e0 ? t : pl.List(e);
		}
		case 'Struct': {
			const fs = t.fields.map((x) => ({ name: x.name, dtype: asText(x.dtype) }));
			return fs.every((x, k) => x.dtype === t.fields[k].dtype) ? t
				: pl.Struct(fs.map((x) => new pl.Field(x.name, x.dtype)));
		}
		default:
			return t;
	}
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'dump' && args.length) {
	const [out, ...files] = args;
	writeFileSync(out, '');
	for (const f of files) {
		let line;
		try {
			let df = pl.readParquet(f);
			// nodejs-polars cannot show a Binary type to JavaScript (it throws): such a column is named so
			const schema = df.columns.map((n) => {
				try {
					return [n, df.getColumn(n).dtype];
				} catch (e) {
					if (!/Binary/.test(String(e && e.message))) throw e;
					return [n, { variant: 'Binary' }];
				}
			});
			// JavaScript numbers lose 64-bit integers: polars writes them as text first
			const casts = schema.filter(([, t]) => t.variant === 'Binary' || t.variant === 'Datetime' || asText(t) !== t).map(([n, t]) =>
				t.variant === 'Binary' ? pl.col(n).cast(pl.List(pl.UInt8)) /* bytes; hex below */
				: t.variant === 'Datetime' ? pl.col(n).cast(pl.Int64).cast(pl.Utf8) : pl.col(n).cast(asText(t)));
			if (casts.length) df = df.lazy().withColumns(...casts).collectSync();
			const names = schema.map(([n]) => n);
			const blob = schema.map(([, t]) => t.variant === 'Binary');
			const hex = (b) => (b === null ? null : Buffer.from(b).toString('hex'));
			const rows = df.toRecords().map((r) => names.map((n, k) => (blob[k] ? hex(r[n]) : value(r[n]))));
			line = { file: f, columns: schema.map(([n, t]) => [n, t.variant === 'Binary' ? 'BLOB' : String(t)]), rows };
		} catch (e) {
			line = { file: f, error: String(e && e.message ? e.message : e) };
		}
		appendFileSync(out, JSON.stringify(line) + '\n');
	}
} else if (mode === 'fleet' && args.length === 2) {
	const [glob, col] = args;
	const cols = col.split(',');
	const r = pl.scanParquet(glob).groupBy(['trace', ...cols]).agg(pl.len().alias('len'))
		.sort('len', true).collectSync();
	const val = (v) => (typeof v === 'bigint' ? v.toString() : v);
	console.log(JSON.stringify(r.toRecords().map((x) => {
		const o = { trace: x.trace };
		for (const c of cols) o[c] = val(x[c]);
		o.len = Number(x.len);
		return o;
	})));
} else {
	console.error('usage: polars.mjs dump OUT FILE... | fleet GLOB COLUMN[,COLUMN...]');
	process.exit(2);
}
