"""Writes the .npy and .npz fixtures of ndarray's tests with NumPy.

Run in this folder: python3 make_fixtures.py
The values follow formulas that npy_test.go repeats.
"""
import numpy as np

np.save("f4_c.npy", (np.arange(24, dtype="<f4") / 4).reshape(2, 3, 4))
np.save("f8_fortran.npy", np.asfortranarray(np.arange(12, dtype="<f8").reshape(3, 4) * 1.5))
np.save("i4_fortran_3d.npy", np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4) - 10))
np.save("u1.npy", np.arange(256, dtype=np.uint8).reshape(16, 16))
np.save("i4_big_endian.npy", np.arange(10, dtype=">i4") - 5)
np.save("i8.npy", np.array([-(2**40), 0, 7, 2**20], dtype="<i8"))
np.save("f2.npy", np.array([0.5, -2, 65504, 1e-7], dtype="<f2"))
np.save("bool.npy", np.array([True, False, True]))
np.save("scalar.npy", np.float32(3.5))
np.save("empty.npy", np.zeros((0, 3), dtype="<f4"))
x = np.arange(6, dtype="<f4").reshape(2, 3)
y = np.array([1, 2, 3], dtype="<i8")
np.savez("arrays.npz", x=x, y=y)
np.savez_compressed("arrays_compressed.npz", x=x, y=y)
