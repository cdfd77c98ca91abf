package spmdtest

import (
	"bytes"
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/rdd"
)

// CheckComm runs every collective of c with varied roots and lengths,
// empty ones included, and checks the results; every rank of c calls it
// at once. It returns the first wrong result.
func CheckComm(c rdd.Comm) error {
	r, n := c.Rank(), c.Size()
	if r < 0 || r >= n {
		return fmt.Errorf("rank %d of %d", r, n)
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	for i := 0; i <= n; i++ {
		root, want := i, Payload(i, i, 10*i) // root 0 sends nothing
		if i == n {
			root, want = n-1, Payload(n-1, -1, 1000) // a longer message
		}
		data := want
		if r != root {
			data = Payload(r, 99, 3) // ignored
		}
		got, err := c.Broadcast(root, data)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("Broadcast from %d: got %v, want %v", root, got, want)
		}
	}
	for i, size := range []func(r int) int{
		func(r int) int { return r },
		func(r int) int { return r + 1 },
		func(r int) int { return 50 * (n - r) },
		func(int) int { return 0 },
	} {
		all, err := c.Allgather(Payload(r, i, size(r)))
		if err != nil {
			return err
		}
		if len(all) != n {
			return fmt.Errorf("Allgather %d: %d parts for %d ranks", i, len(all), n)
		}
		for s, b := range all {
			if want := Payload(s, i, size(s)); !bytes.Equal(b, want) {
				return fmt.Errorf("Allgather %d: part %d is %v, want %v", i, s, b, want)
			}
		}
	}
	for i, size := range []func(from, to int) int{
		func(from, to int) int { return from + 2*to },
		func(from, to int) int { return 0 },
		func(from, to int) int { return 300 * (from + 1) * (to + 1) },
	} {
		send := make([][]byte, n)
		for to := range send {
			send[to] = Payload(r, 10*i+to, size(r, to))
		}
		got, err := c.Alltoall(send)
		if err != nil {
			return err
		}
		if len(got) != n {
			return fmt.Errorf("Alltoall %d: %d parts for %d ranks", i, len(got), n)
		}
		for from, b := range got {
			if want := Payload(from, 10*i+r, size(from, r)); !bytes.Equal(b, want) {
				return fmt.Errorf("Alltoall %d: from %d got %v, want %v", i, from, b, want)
			}
		}
	}
	for _, m := range []int{0, 1, n + 1, 1000} {
		xs := Floats(r, m)
		if err := c.AllreduceFloat32Sum(xs); err != nil {
			return err
		}
		want := make([]float64, m)
		for s := 0; s < n; s++ {
			for i, x := range Floats(s, m) {
				want[i] += float64(x)
			}
		}
		for i := range xs {
			if math.Abs(float64(xs[i])-want[i]) > 1e-5*float64(n) {
				return fmt.Errorf("AllreduceFloat32Sum of %d: [%d] = %v, want %v", m, i, xs[i], want[i])
			}
		}
	}
	return c.Barrier()
}

// Payload is rank r's data of length n in test round i.
func Payload(r, i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(31*r + 7*i + j)
	}
	return b
}

// Floats is rank r's vector of length n.
func Floats(r, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(r*n+i))) * float32(r+1)
	}
	return xs
}
