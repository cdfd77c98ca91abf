"""Caffe Datum records for the fixture generators."""
import struct


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
