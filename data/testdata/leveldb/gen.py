#!/usr/bin/python3
"""Writes the LevelDB fixtures of data/leveldb_test.go with Debian's
python3-plyvel (Google's LevelDB library), as Caffe's convert tools lay
them out with --backend=leveldb: keys "%08d", values serialized
caffe.Datum messages.

    /usr/bin/python3 data/testdata/leveldb/gen.py data/testdata/leveldb

Pixel j of record i is (31*i + 7*j) % 256 and its label i % 10, as in the
LMDB fixtures.
"""
import os, shutil, sys
import plyvel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lmdb'))
from datum import datum, pixels  # noqa: E402

def write(path, records, compact):
    if os.path.exists(path):
        shutil.rmtree(path)
    db = plyvel.DB(path, create_if_missing=True, compression='snappy')
    with db.write_batch() as wb:
        for key, value in records:
            wb.put(key, value)
    if compact:
        db.compact_range()  # into a sorted table; otherwise the records stay in the log
    db.close()
    for name in os.listdir(path):
        if name == 'LOCK' or name.startswith('LOG'):
            os.remove(os.path.join(path, name))

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
records = [(b'%08d' % i, datum(3, 6, 6, i % 10, data=pixels(i, 108))) for i in range(200)]
write(os.path.join(out, 'table'), records, True)
write(os.path.join(out, 'log'), records[:50], False)
