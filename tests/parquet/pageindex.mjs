// The page index of Parquet files (ColumnIndex, OffsetIndex), read by a
// reader that uses it to skip pages: hyparquet (npm, pure JavaScript; its
// readColumnIndex/readOffsetIndex are what its own queries plan pages
// with), installed by tests/parquet/duckdb-setup.sh.  hyparquet reads
// snappy and uncompressed files, not zstd: convert with --compression
// snappy or none.
//
//   node pageindex.mjs FILE...
//   node pageindex.mjs sorting FILE...
//       the row groups' sorting_columns only (below), not the page index
//       (hyparquet's readColumnIndex fails on a TIMESTAMP chunk with a page
//       of nulls only, whose bounds are empty as the format says)
//   node pageindex.mjs window FILE FROM TO
//       the rows of FILE whose ts is in [FROM, TO) (ns), read by hyparquet
//       with its page index and without: {"rows", "rows_without",
//       "bytes_with", "bytes_without", "size"} (the bytes it fetched from
//       the file: the page index and pages, or the pages; the footer read before)
//
// For every column chunk: an OffsetIndex whose pages start at the chunk's
// first data page, follow each other to the chunk's end, and start at rows
// 0, then increasing; for every chunk with a ColumnIndex, one entry per page,
// and for top-level columns and lists of scalars (not groups) each page's null count,
// null-page flag and bounds equal those of the rows the OffsetIndex gives
// it, as hyparquet reads them; the boundary order true, and ASCENDING for
// every integer column whose pages' bounds never go down (`ts`: a file's
// rows are in time order; counted in "ts_ascending").  And for every row
// group: its sorting_columns name `ts` (ascending, nulls not first) exactly
// when its rows' ts, as hyparquet reads them, never go down and none is null
// (counted in "sorted_row_groups" and "unsorted_row_groups"; those whose ts
// go down only where a page starts in "down_at_pages").  Prints
// {"files", "chunks", "column_indexes", "pages", "checked_pages",
// "ts_ascending", "sorted_row_groups", "unsorted_row_groups", "down_at_pages", "bad"} and exits
// 1 when a check fails (each failure on a line before).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const require = createRequire(process.env.TIO_NODE_MODULES + '/');
const hp = await import(require.resolve('hyparquet'));

// time stamps as their nanoseconds (hyparquet's default: a Date, to the millisecond); byte
// arrays as their bytes, STRING or not (its default: text decoded as UTF-8, bytes that are not
// UTF-8 replaced, so that a BLOB's bounds were not those of its rows)
const parsers = { timestampFromNanoseconds: (ns) => BigInt(ns), stringFromBytes: (b) => b };

if (process.argv[2] === 'window') {
	const [file, from, to] = process.argv.slice(3);
	const buf = readFileSync(file);
	const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
	const out = { size: ab.byteLength }, metadata = hp.parquetMetadata(ab, { parsers });
	for (const usePageIndex of [true, false]) {
		let bytes = 0;
		const file = { byteLength: ab.byteLength, slice: (a, b = ab.byteLength) => (bytes += b - a, ab.slice(a, b)) };
		const rows = await hp.parquetReadObjects({ file, metadata, usePageIndex, rowFormat: 'object',
			parsers,
			filter: { ts: { $gte: BigInt(from), $lt: BigInt(to) } } });
		out[usePageIndex ? 'rows' : 'rows_without'] = rows.length;
		out[usePageIndex ? 'bytes_with' : 'bytes_without'] = bytes;
	}
	console.log(JSON.stringify(out));
	process.exit(0);
}

let files = 0, chunks = 0, cis = 0, pages = 0, checked = 0, tsAsc = 0, sortedRgs = 0, unsortedRgs = 0, downAtPages = 0, bad = 0;
const fail = (...a) => {
	console.log('not ok:', ...a);
	if (++bad > 50) process.exit(1);
};
// values compared across hyparquet's types (bigint, number, Date, bytes, strings, booleans)
const norm = (v) => v instanceof Date ? v.getTime() : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v;
const less = (a, b) => (typeof a === 'bigint' || typeof b === 'bigint') ? BigInt(a) < BigInt(b) : a < b;
const same = (a, b) => (typeof a === 'bigint' || typeof b === 'bigint') ? BigInt(a) === BigInt(b) : Object.is(a, b);
const reader = (ab, off, len) => ({ view: new DataView(ab, Number(off), len), offset: 0 });

const sortingOnly = process.argv[2] === 'sorting';
for (const file of process.argv.slice(sortingOnly ? 3 : 2)) {
	files++;
	const buf = readFileSync(file);
	const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
	const md = hp.parquetMetadata(ab, { parsers });
	let rows;
	try {
		rows = await hp.parquetReadObjects({ file: ab, parsers, utf8: false });
	} catch (e) {
		fail(file, 'hyparquet cannot read it:', e.message);
		continue;
	}
	// top-level columns: their names, and whether each is a leaf
	const top = new Map();
	for (let i = 1; i < md.schema.length;) {
		const s = md.schema[i];
		top.set(s.name, !s.num_children);
		let skip = 1;
		for (let n = s.num_children || 0, j = i + 1; n > 0; j++, n--) { // a group: skip its subtree
			n += md.schema[j].num_children || 0;
			skip++;
		}
		i += skip;
	}
	// every leaf's SchemaElement by its path (its logical type reads its bounds)
	const leaves = new Map();
	{
		let i = 1;
		const walk = (prefix) => {
			const s = md.schema[i++], p = [...prefix, s.name];
			if (!s.num_children) leaves.set(p.join('.'), s);
			for (let n = 0; n < (s.num_children || 0); n++) walk(p);
		};
		while (i < md.schema.length) walk([]);
	}
	let first = 0;
	for (const rg of md.row_groups) {
		// sorting_columns: ts's, when its rows are in order (SC_TAMPER: the check told they never are)
		const tsIdx = rg.columns.findIndex((cc) => cc.meta_data.path_in_schema.join('.') === 'ts');
		const downs = []; // rows of the row group where ts goes down
		if (tsIdx >= 0) {
			const ts = rows.slice(first, first + Number(rg.num_rows)).map((r) => r.ts);
			for (let k = 1; k < ts.length; k++)
				if (ts[k] !== null && ts[k - 1] !== null && less(norm(ts[k]), norm(ts[k - 1]))) downs.push(k);
			const inOrder = !process.env.SC_TAMPER && ts.length > 0 && !downs.length &&
				ts.every((v) => v !== null && v !== undefined);
			const want = inOrder ? [{ column_idx: tsIdx, descending: false, nulls_first: false }] : undefined;
			const got = rg.sorting_columns && rg.sorting_columns.length ? rg.sorting_columns : undefined;
			if (JSON.stringify(got) !== JSON.stringify(want))
				fail(file, 'row group at row', first, 'sorting_columns', JSON.stringify(got), 'ts in order:', inOrder);
			if (inOrder) sortedRgs++;
			else unsortedRgs++;
		}
		if (sortingOnly) {
			first += Number(rg.num_rows);
			continue;
		}
		for (const cc of rg.columns) {
			chunks++;
			const m = cc.meta_data, path = m.path_in_schema.join('.');
			if (!cc.offset_index_offset || !cc.offset_index_length) {
				fail(file, path, 'no OffsetIndex');
				continue;
			}
			const locs = hp.readOffsetIndex(reader(ab, cc.offset_index_offset, cc.offset_index_length)).page_locations;
			if (process.env.PI_TAMPER)
				for (let k = 1; k < locs.length; k++)
					locs[k].first_row_index = BigInt(locs[k].first_row_index) + 1n;
			pages += locs.length;
			const end = Number(m.dictionary_page_offset ?? m.data_page_offset) + Number(m.total_compressed_size);
			if (!locs.length || Number(locs[0].offset) !== Number(m.data_page_offset) || Number(locs[0].first_row_index) !== 0)
				fail(file, path, 'first page', JSON.stringify(locs[0], (k, v) => typeof v === 'bigint' ? Number(v) : v));
			for (let k = 1; k < locs.length; k++) {
				if (Number(locs[k].offset) !== Number(locs[k - 1].offset) + locs[k - 1].compressed_page_size)
					fail(file, path, 'page', k, 'does not follow the one before');
				if (Number(locs[k].first_row_index) <= Number(locs[k - 1].first_row_index) ||
				    Number(locs[k].first_row_index) >= Number(rg.num_rows))
					fail(file, path, 'page', k, 'first row', locs[k].first_row_index);
			}
			const last = locs[locs.length - 1];
			if (last && Number(last.offset) + last.compressed_page_size !== end)
				fail(file, path, 'the last page ends at', Number(last.offset) + last.compressed_page_size, 'not', end);
			if (!cc.column_index_offset)
				continue;
			cis++;
			const se = leaves.get(path);
			if (!se)
				fail(file, path, 'no such leaf in the schema');
			const ci = hp.readColumnIndex(reader(ab, cc.column_index_offset, cc.column_index_length), se ?? { type: m.type }, parsers);
			if (ci.null_pages.length !== locs.length || ci.min_values.length !== locs.length ||
			    ci.max_values.length !== locs.length || ci.null_counts.length !== locs.length) {
				fail(file, path, 'ColumnIndex of', ci.null_pages.length, 'pages, OffsetIndex of', locs.length);
				continue;
			}
			// boundary order: as claimed; and for integers (and ts) ASCENDING whenever it holds
			let asc = !ci.null_pages.some((x) => x), desc = asc;
			for (let k = 1; k < locs.length && (asc || desc); k++) {
				const [a0, a1, b0, b1] = [ci.min_values[k - 1], ci.min_values[k], ci.max_values[k - 1], ci.max_values[k]].map(norm);
				if (less(a1, a0) || less(b1, b0)) asc = false;
				if (less(a0, a1) || less(b0, b1)) desc = false;
			}
			const ints = m.type === 'INT32' || m.type === 'INT64';
			if ((ci.boundary_order === 'ASCENDING' && !asc) || (ci.boundary_order === 'DESCENDING' && !desc) ||
			    (ints && asc && ci.boundary_order !== 'ASCENDING'))
				fail(file, path, 'boundary order', ci.boundary_order, 'ascending', asc, 'descending', desc);
			if (path === 'ts' && ci.boundary_order === 'ASCENDING')
				tsAsc++;
			// ts going down only where a page starts (each page in order): counted
			if (path === 'ts' && downs.length && downs.every((d) => locs.some((l) => Number(l.first_row_index) === d)))
				downAtPages++;
			// a top-level column, or a list of scalars (name.list.element: a row's leaf levels
			// are its elements, or one null for an empty or null list)
			const p0 = m.path_in_schema[0];
			const list = m.path_in_schema.length === 3 && m.path_in_schema[1] === 'list' &&
				m.path_in_schema[2] === 'element' && top.get(p0) === false;
			if (!list && (m.path_in_schema.length !== 1 || !top.get(path)))
				continue;
			for (let k = 0; k < locs.length; k++) {
				const a = first + Number(locs[k].first_row_index);
				const b = first + (k + 1 < locs.length ? Number(locs[k + 1].first_row_index) : Number(rg.num_rows));
				const vals = rows.slice(a, b).flatMap((r) => !list ? [r[p0]] : Array.isArray(r[p0]) && r[p0].length ? r[p0] : [null]);
				const nn = vals.filter((v) => v !== null && v !== undefined).map(norm)
					.filter((v) => !(typeof v === 'number' && Number.isNaN(v)));
				const nulls = vals.filter((v) => v === null || v === undefined).length;
				checked++;
				if (Number(ci.null_counts[k]) !== nulls)
					fail(file, path, 'page', k, 'null count', ci.null_counts[k], 'rows', nulls);
				if (ci.null_pages[k] !== (nulls === vals.length))
					fail(file, path, 'page', k, 'null page', ci.null_pages[k]);
				if (!nn.length)
					continue;
				let mn = nn[0], mx = nn[0];
				for (const v of nn) {
					if (less(v, mn)) mn = v;
					if (less(mx, v)) mx = v;
				}
				const cmn = norm(ci.min_values[k]), cmx = norm(ci.max_values[k]);
				if (!same(cmn, mn) && !(mn === 0 && cmn === 0)) // -0 and +0: either bound is right
					fail(file, path, 'page', k, 'min', cmn, 'rows', mn);
				if (!same(cmx, mx) && !(mx === 0 && cmx === 0))
					fail(file, path, 'page', k, 'max', cmx, 'rows', mx);
			}
		}
		first += Number(rg.num_rows);
	}
}
console.log(JSON.stringify({ files, chunks, column_indexes: cis, pages, checked_pages: checked, ts_ascending: tsAsc,
	sorted_row_groups: sortedRgs, unsorted_row_groups: unsortedRgs, down_at_pages: downAtPages, bad }));
process.exit(bad ? 1 : 0);
