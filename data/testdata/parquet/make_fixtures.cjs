// Writes the Parquet fixtures of data's tests with DuckDB, an
// independent writer, from its npm package:
//
//	npm install @duckdb/node-api      (in any folder)
//	NODE_PATH=that/folder/node_modules node make_fixtures.cjs
//
// run in this folder. The values follow formulas that the Go tests
// repeat (see parquet_test.go), so the tests check the files value by
// value.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');

// image is the hex of 16 bytes for row i: byte j is (7i + 3j) mod 256.
const image = (n) => `from_hex(array_to_string(list_transform(range(${n}), j -> printf('%02x', (i * 7 + j * 3) % 256)), ''))`;

async function main() {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const copy = (query, file, options) =>
    con.run(`COPY (${query}) TO '${file}' (FORMAT parquet${options ? ', ' + options : ''})`);

  // Samples as bytes: 1×4×4 images, labels 0-9, several row groups.
  await copy(`SELECT i::BIGINT AS id, ${image(16)} AS image, (i % 10)::INTEGER AS label
              FROM range(50) t(i)`, 'bytes.parquet', "COMPRESSION zstd, ROW_GROUP_SIZE 16");

  // Samples as lists of floats, fractional labels.
  await copy(`SELECT list_transform(range(6), j -> (i + j / 4)::FLOAT) AS features, (i % 3) * 0.5 AS label
              FROM range(20) t(i)`, 'floats.parquet', "COMPRESSION snappy");

  // Rows of every supported type, with nulls, empty lists and a
  // dictionary-encoded string column.
  await copy(`SELECT i::BIGINT AS id,
                     (i * 3 - 7)::INTEGER AS small,
                     CASE WHEN i % 4 = 3 THEN NULL ELSE 'name' || (i % 5) END AS name,
                     i / 8 AS score,
                     (i * 0.25)::FLOAT AS ratio,
                     i % 2 = 0 AS flag,
                     CASE WHEN i % 5 = 4 THEN NULL ELSE list_transform(range(i % 3), j -> 't' || j) END AS tags,
                     ${image(3)} AS payload
              FROM range(30) t(i)`, 'rows.parquet', "COMPRESSION gzip");

  // A folder of part files, as Spark writes them.
  fs.mkdirSync('parts', { recursive: true });
  await copy(`SELECT ${image(16)} AS image, (i % 10)::INTEGER AS label FROM range(0, 20) t(i)`, 'parts/part-00000.parquet');
  await copy(`SELECT ${image(16)} AS image, (i % 10)::INTEGER AS label FROM range(20, 45) t(i)`, 'parts/part-00001.parquet');
  fs.writeFileSync('parts/_SUCCESS', '');

  // Spark's image schema: a struct with the shape beside the bytes.
  await copy(`SELECT struct_pack(origin := 'img' || i, height := 3, width := 4, nChannels := 1, mode := 0,
                                 data := ${image(12)}) AS image,
                     (i % 2)::INTEGER AS label
              FROM range(10) t(i)`, 'spark_image.parquet');
}

main().catch((e) => { console.error(e); process.exit(1); });
