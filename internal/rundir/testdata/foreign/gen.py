#!/usr/bin/env python3
"""Writes the foreign encodings of run/samples.parquet (a small run diperf
wrote: 3 testers, 2 clients each, ok and failed calls, an extra `mb`) that
internal/rundir and internal/pipeline read back: what DuckDB, pyarrow and
Polars write when they rewrite the file, and three files diperf must refuse.
Run it here: pip install duckdb pyarrow polars; python3 gen.py
"""
import random

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

SRC = "run/samples.parquet"
TIMES = ["start_ns", "end_ns", "local_start_ns", "intended_ns"]


def duck(name, select="*", options=""):
    duckdb.sql(f"COPY (SELECT {select} FROM '{SRC}') TO '{name}' (FORMAT parquet{options})")


def cast(t, names, typ):
    for n in names:
        i = t.schema.get_field_index(n)
        t = t.set_column(i, n, pc.cast(t[n], typ))
    return t


# DuckDB: dictionary-encoded integers, its own compression and row groups.
duck("duckdb.parquet")
duck("duckdb_zstd_small_groups.parquet", options=", COMPRESSION zstd, ROW_GROUP_SIZE 64")
duck("duckdb_bigint.parquet", "* REPLACE (tester::BIGINT AS tester, client::BIGINT AS client, seq::INTEGER AS seq)",
     ", COMPRESSION gzip")
duck("duckdb_timestamp_ns.parquet",
     "* REPLACE (make_timestamp_ns(start_ns) AS start_ns, make_timestamp_ns(end_ns) AS end_ns)")

# pyarrow: integers without an annotation, dictionaries or plain pages.
t = pq.read_table(SRC)
pq.write_table(t, "pyarrow.parquet")
pq.write_table(t, "pyarrow_plain_v2.parquet", use_dictionary=False, compression="gzip", data_page_version="2.0",
               column_encoding={c: "DELTA_BINARY_PACKED" for c in ["seq", "start_ns", "end_ns", "local_start_ns"]})
pq.write_table(t, "pyarrow_legacy_v1.parquet", version="1.0", compression="none")
pq.write_table(cast(cast(t, TIMES, pa.timestamp("ns")), ["tester", "client"], pa.int64()), "pyarrow_timestamp.parquet",
               compression="lz4")

# Polars: optional columns, zstd.
d = pl.read_parquet(SRC)
d.write_parquet("polars.parquet")
d.with_columns(pl.col("tester").cast(pl.Int64), pl.col("client").cast(pl.Int64),
               pl.col("start_ns").cast(pl.Datetime("ns"))).write_parquet("polars_int64.parquet", compression="snappy")

# Refused: a column of the wrong type, nulls where every row needs a value,
# and INT96 timestamps.
duck("bad_start_text.parquet", "* REPLACE (start_ns::VARCHAR AS start_ns)")
duck("bad_tester_double.parquet", "* REPLACE (tester::DOUBLE AS tester)")
duck("bad_end_null.parquet", "* REPLACE (CASE WHEN seq = 3 THEN NULL ELSE end_ns END AS end_ns)")
pq.write_table(cast(t, ["local_start_ns"], pa.timestamp("ns")), "bad_local_int96.parquet",
               use_deprecated_int96_timestamps=True)

# Malformed: bytes of a good file overwritten at random (Python's seeded
# random), the first mutation of each kind the fuzzing found: a footer whose
# page index makes parquet-go panic as it opens the file, a gzip page, and a
# dictionary index past the dictionary. diperf must say each is unreadable,
# as an error, not a panic.


def flip(src, seed, rounds, dst):
    data = open(src, "rb").read()
    random.seed(seed)
    for _ in range(rounds + 1):
        d = bytearray(data)
        for _ in range(random.randint(1, 8)):
            at = random.randrange(4, len(d) - 8)
            d[at] = random.randrange(256)
    open(dst, "wb").write(d)


flip("polars.parquet", 7, 10, "malformed_footer.parquet")
flip("pyarrow_plain_v2.parquet", 7, 11, "malformed_gzip_page.parquet")
flip("pyarrow_timestamp.parquet", 7, 4, "malformed_dictionary_index.parquet")
