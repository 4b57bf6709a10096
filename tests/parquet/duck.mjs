// DuckDB for the Parquet tests (tests/parquet/test-*.sh), through the
// @duckdb/node-api package that tests/parquet/duckdb-setup.sh installs.
//
//   node duck.mjs sql "SQL" ...        each query's rows as one JSON line
//   node duck.mjs dump OUT.jsonl FILE...  every row of every Parquet file:
//       one line per file: {"file", "columns": [[name, type]...], "rows": [[...]...]}
//       (TIMESTAMP_NS as epoch_ns integers, BLOB as hex, 64-bit integers as text)
import { createRequire } from 'node:module';
import { writeFileSync, appendFileSync } from 'node:fs';
const require = createRequire(process.env.TIO_NODE_MODULES + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const [mode, ...args] = process.argv.slice(2);
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';

if (mode === 'sql') {
	let status = 0;
	for (const sql of args) {
		try {
			const r = await con.runAndReadAll(sql);
			console.log(JSON.stringify(r.getRowObjectsJson()));
		} catch (e) {
			console.log(JSON.stringify({ error: e.message }));
			status = 1;
		}
	}
	process.exit(status);
} else if (mode === 'dump') {
	const [out, ...files] = args;
	writeFileSync(out, '');
	for (const f of files) {
		try {
			const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(f)})`);
			const cols = d.getRowObjectsJson().map((c) => [c.column_name, c.column_type]);
			const sel = cols.map(([n, t]) =>
				t === 'TIMESTAMP_NS' ? `epoch_ns(${ident(n)})` : t === 'BLOB' ? `hex(${ident(n)})` : ident(n));
			const r = await con.runAndReadAll(`SELECT ${sel.join(', ') || '*'} FROM read_parquet(${q(f)})`);
			appendFileSync(out, JSON.stringify({ file: f, columns: cols, rows: r.getRowsJson() }) + '\n');
		} catch (e) {
			appendFileSync(out, JSON.stringify({ file: f, error: e.message }) + '\n');
		}
	}
} else {
	console.error('usage: duck.mjs sql SQL... | dump OUT FILE...');
	process.exit(2);
}
