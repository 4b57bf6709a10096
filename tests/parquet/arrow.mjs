// A second Parquet reader for the Parquet tests: Apache Arrow's Rust
// implementation (the arrow-rs `parquet` crate, compiled to WebAssembly by
// the npm package parquet-wasm), its Arrow tables read with apache-arrow's
// JavaScript library.  Both installed by tests/parquet/duckdb-setup.sh.
//
//   node arrow.mjs dump OUT.jsonl FILE...
//       every row of every Parquet file, in duck.mjs's dump format (one line
//       per file: {"file", "columns": [[name, type]...], "rows": [[...]...]}):
//       timestamps as epoch nanoseconds and 64-bit integers as text, binary
//       values as hex (column type "BLOB"), NaN and infinities as "nan",
//       "inf", "-inf", lists as arrays, groups as objects.  A file the
//       reader refuses: {"file", "error"}.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
const require = createRequire(process.env.TIO_NODE_MODULES + '/');
const { readParquet } = require('parquet-wasm/node');
const arrow = require('apache-arrow');

const T = arrow.Type;
const hex = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('hex').toUpperCase();

// The value at row i of vector v (a plain JSON value).
function value(v, i) {
	if (!v.isValid(i)) return null;
	const t = v.type;
	switch (t.typeId) {
		case T.Timestamp: { // arrow's JavaScript gives milliseconds: read the 64-bit count
			const raw = new arrow.Vector(v.data.map((d) => d.clone(new arrow.Int64())));
			return raw.get(i).toString();
		}
		case T.Int:
			return t.bitWidth === 64 ? v.get(i).toString() : v.get(i);
		case T.Float: {
			const x = Number(v.get(i));
			return Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : x;
		}
		case T.Bool:
		case T.Utf8:
		case T.LargeUtf8:
			return v.get(i);
		case T.Binary:
		case T.LargeBinary:
		case T.FixedSizeBinary:
			return hex(v.get(i));
		case T.List:
		case T.LargeList:
		case T.FixedSizeList: {
			const e = v.get(i);
			const out = [];
			for (let k = 0; k < e.length; k++) out.push(value(e, k));
			return out;
		}
		case T.Struct: {
			const o = {};
			t.children.forEach((f, k) => { o[f.name] = value(v.getChildAt(k), i); });
			return o;
		}
		case T.Dictionary:
			return v.get(i);
		default:
			throw new Error(`arrow.mjs: no conversion for ${t} (column type id ${t.typeId})`);
	}
}

const typeName = (t) =>
	t.typeId === T.Binary || t.typeId === T.LargeBinary || t.typeId === T.FixedSizeBinary ? 'BLOB' : String(t);

const [mode, out, ...files] = process.argv.slice(2);
if (mode !== 'dump' || !out) {
	console.error('usage: arrow.mjs dump OUT FILE...');
	process.exit(2);
}
writeFileSync(out, '');
for (const f of files) {
	let line;
	try {
		const wt = readParquet(new Uint8Array(readFileSync(f)));
		const tab = arrow.tableFromIPC(wt.intoIPCStream());
		const fields = tab.schema.fields;
		const cols = fields.map((x, k) => tab.getChildAt(k));
		const rows = [];
		for (let i = 0; i < tab.numRows; i++) rows.push(cols.map((c) => value(c, i)));
		line = { file: f, columns: fields.map((x) => [x.name, typeName(x.type)]), rows };
	} catch (e) {
		line = { file: f, error: String(e && e.message ? e.message : e) };
	}
	appendFileSync(out, JSON.stringify(line) + '\n');
}
