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

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def field(num, wire, payload):
    return varint(num << 3 | wire) + payload

def datum(c, h, w, label, data=None, floats=None, encoded=False):
    msg = field(1, 0, varint(c)) + field(2, 0, varint(h)) + field(3, 0, varint(w))
    if data is not None:
        msg += field(4, 2, varint(len(data)) + data)
    msg += field(5, 0, varint(label))
    if floats is not None:
        for f in floats:  # unpacked, as proto2 writes repeated floats
            msg += field(6, 5, struct.pack('<f', f))
    if encoded:
        msg += field(7, 0, varint(1))
    return msg

def pixels(i, n):
    return bytes((31 * i + 7 * j) % 256 for j in range(n))

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
