"""Prints what NumPy reads from .npy and .npz files, one JSON object per
array, for the test that NumPy reads the files ndarray writes:

    python3 read_numpy.py FILE...
"""
import json
import sys

import numpy as np

for path in sys.argv[1:]:
    loaded = np.load(path)
    arrays = loaded.items() if path.endswith(".npz") else [("", loaded)]
    for name, a in sorted(arrays):
        print(json.dumps({"file": path.rsplit("/", 1)[-1], "name": name, "dtype": str(a.dtype),
                          "shape": list(a.shape), "fortran": bool(a.flags.f_contiguous and not a.flags.c_contiguous),
                          "values": a.ravel().tolist()}))
