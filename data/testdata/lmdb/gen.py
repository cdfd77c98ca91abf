#!/usr/bin/python3
"""Writes the LMDB fixtures of data/lmdb_test.go with Debian's python3-lmdb
(the LMDB C library), as Caffe's convert tools lay them out: keys "%08d",
values serialized caffe.Datum messages.

    /usr/bin/python3 data/testdata/lmdb/gen.py data/testdata/lmdb

Pixel j of record i is (31*i + 7*j) % 256 and its label i % 10; the tests
recompute both.
"""
import os, shutil, struct, sys, zlib
import lmdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datum import datum, pixels  # noqa: E402

def png(w, h, rgb):
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    raw = b''.join(b'\x00' + bytes(rgb[(y * w + x) * 3 + k] for x in range(w) for k in range(3)) for y in range(h))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))

def write(path, records):
    if os.path.exists(path):
        shutil.rmtree(path)
    env = lmdb.open(path, map_size=1 << 22)
    with env.begin(write=True) as txn:
        for key, value in records:
            txn.put(key, value)
    env.close()
    os.remove(os.path.join(path, 'lock.mdb'))

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
# 200 small records: several leaf pages under a branch page.
write(os.path.join(out, 'small'), [(b'%08d' % i, datum(3, 6, 6, i % 10, data=pixels(i, 108))) for i in range(200)])
# Records larger than a page half: values on overflow pages.
write(os.path.join(out, 'big'), [(b'%08d' % i, datum(3, 32, 32, i % 10, data=pixels(i, 3072))) for i in range(5)])
write(os.path.join(out, 'huge'), [(b'%08d' % i, datum(3, 48, 48, i % 10, data=pixels(i, 3 * 48 * 48))) for i in range(2)])
# float_data records.
write(os.path.join(out, 'float'), [(b'%08d' % i, datum(1, 2, 3, i % 10, floats=[i + j / 8 for j in range(6)])) for i in range(10)])
# Encoded (PNG) records, 5 wide and 4 high.
write(os.path.join(out, 'encoded'), [(b'%08d' % i, datum(0, 0, 0, i % 10, data=png(5, 4, pixels(i, 60)), encoded=True)) for i in range(3)])
