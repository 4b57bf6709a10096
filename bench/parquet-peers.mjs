// Peers' Parquet writers on the tables traceio wrote (bench/parquet.sh): each
// file of DIR loaded into memory once, then written again by
//   DuckDB  (COPY ... TO, FORMAT parquet, zstd at LEVEL, THREADS threads) and
//   polars  (DataFrame.writeParquet, zstd at polars' default level; its own
//           Rust writer, threads as polars picks them)
// REPS times each in turn, keeping each writer's run with the least CPU time.
// Only the writing is timed: the tables are already in memory, decoded, in the
// engine's own columnar form, which no trace reader gives them; so a peer's
// figure is less than any conversion of the trace through it would take.
//
//   node parquet-peers.mjs DIR OUTDIR THREADS LEVEL REPS
// prints one JSON line per writer: {"writer", "files", "rows", "wall_s", "cpu_s", "bytes",
// "rows_written"} (cpu_s: the process's user + system time over the writes, every thread;
// rows_written: the rows of what it wrote, as DuckDB reads them back).
// Needs TIO_NODE_MODULES (tests/parquet/duckdb-setup.sh prints it).
import { createRequire } from 'node:module';
import { readdirSync, rmSync, mkdirSync, statSync } from 'node:fs';
const require = createRequire(process.env.TIO_NODE_MODULES + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const pl = require('nodejs-polars');

const [dir, out, threads, level, reps] = process.argv.slice(2);
if (!dir || !out) {
	console.error('usage: parquet-peers.mjs DIR OUTDIR THREADS LEVEL REPS');
	process.exit(2);
}
const files = readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
let con;

function bytes(d) {
	let n = 0;
	for (const f of readdirSync(d)) n += statSync(`${d}/${f}`).size;
	return n;
}

// one timed run of fn (writing every file into a fresh OUTDIR)
async function timed(fn) {
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	const c0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	await fn();
	const wall = Number(process.hrtime.bigint() - t0) / 1e9;
	const c = process.cpuUsage(c0);
	// what was written, read back by DuckDB (not timed): bench/parquet.sh flags a writer that wrote fewer rows
	const r = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${q(`${out}/*.parquet`)})`);
	return { wall_s: wall, cpu_s: (c.user + c.system) / 1e6, bytes: bytes(out), rows_written: Number(r.getRows()[0][0]) };
}

const inst = await DuckDBInstance.create(':memory:', { threads: String(threads || 2) });
con = await inst.connect();
let rows = 0;
for (const [i, f] of files.entries()) {
	await con.run(`CREATE TABLE t${i} AS SELECT * FROM read_parquet(${q(`${dir}/${f}`)})`);
	const r = await con.runAndReadAll(`SELECT count(*) FROM t${i}`);
	rows += Number(r.getRows()[0][0]);
}
const dfs = files.map((f) => pl.readParquet(`${dir}/${f}`));
const prows = dfs.reduce((a, d) => a + d.height, 0);
if (prows !== rows) {
	console.error(`parquet-peers: DuckDB read ${rows} rows, polars ${prows}`);
	process.exit(1);
}

const writers = {
	duckdb: async () => {
		for (const [i, f] of files.entries())
			await con.run(`COPY t${i} TO ${q(`${out}/${f}`)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${Number(level || 1)})`);
	},
	polars: async () => {
		for (const [i, f] of files.entries()) dfs[i].writeParquet(`${out}/${f}`, { compression: 'zstd' });
	},
};
const best = {};
for (let k = 0; k < Number(reps || 1); k++)
	for (const [w, fn] of Object.entries(writers)) {
		const r = await timed(fn);
		if (!best[w] || r.cpu_s < best[w].cpu_s) best[w] = r;
	}
rmSync(out, { recursive: true, force: true });
for (const [w, r] of Object.entries(best)) console.log(JSON.stringify({ writer: w, files: files.length, rows, ...r }));
