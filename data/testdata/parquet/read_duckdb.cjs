// Prints the rows of a Parquet file or folder as DuckDB reads them, one
// JSON object per line (BLOBs as hex), for the Go tests that check that
// DuckDB reads what sparknet writes:
//
//	NODE_PATH=.../node_modules node read_duckdb.cjs FILE_OR_FOLDER
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');

async function main() {
  let path = process.argv[2];
  if (fs.statSync(path).isDirectory()) {
    path = path + '/*.parquet';
  }
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const meta = await con.runAndReadAll(`SELECT key, value FROM parquet_kv_metadata('${path}')`);
  for (const row of meta.getRowObjectsJS()) {
    console.log(JSON.stringify({ metadata: Buffer.from(row.key).toString() + '=' + Buffer.from(row.value).toString() }));
  }
  const reader = await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`);
  for (const row of reader.getRowObjectsJS()) {
    const out = {};
    for (const [k, v] of Object.entries(row)) {
      out[k] = convert(v);
    }
    console.log(JSON.stringify(out));
  }
}

function convert(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Uint8Array) return 'hex:' + Buffer.from(v).toString('hex');
  if (Array.isArray(v)) return v.map(convert);
  if (typeof v === 'object' && v.items !== undefined) return v.items.map(convert);
  if (typeof v === 'object' && v.bytes !== undefined) return 'hex:' + Buffer.from(v.bytes).toString('hex');
  return v;
}

main().catch((e) => { console.error(e); process.exit(1); });
