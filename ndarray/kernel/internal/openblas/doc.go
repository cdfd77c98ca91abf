// Package openblas is a minimal cgo binding of OpenBLAS's cblas_sgemm, the
// yardstick package kernel benchmarks against. It is built only with the
// openblas build tag (and cgo); it needs Debian's libopenblas-dev or
// equivalent. Set OPENBLAS_NUM_THREADS to control OpenBLAS's own threads.
package openblas
