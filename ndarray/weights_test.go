package ndarray

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func lenetLike(seed uint64) *WeightCollection {
	w := NewWeightCollection()
	w.Set("conv1", Randn(seed, 20, 1, 5, 5), Randn(seed+1, 20))
	w.Set("ip1", Randn(seed+2, 50, 80), Randn(seed+3, 50))
	w.Set("ip2", Randn(seed+4, 10, 50))
	return w
}

func TestWeightCollectionArithmetic(t *testing.T) {
	a, b := lenetLike(1), lenetLike(10)
	if got := a.Layers(); len(got) != 3 || got[0] != "conv1" || got[2] != "ip2" {
		t.Fatalf("layer order %v", got)
	}
	if n := a.NumParams(); n != 500+20+4000+50+500 {
		t.Fatalf("NumParams %d", n)
	}
	sum := a.Add(b)
	diff := sum.Sub(b)
	if !diff.ApproxEqual(a, 1e-6) {
		t.Fatalf("(a+b)-b differs from a by %g", diff.MaxDiff(a))
	}
	if a.Get("conv1")[0] == sum.Get("conv1")[0] {
		t.Fatal("Add must not alias its receiver")
	}
	avg := Average(a, b)
	if !avg.ApproxEqual(sum.Scale(0.5), 1e-6) {
		t.Fatal("Average")
	}
	// hand-computed dot and norm against flattened values
	var dot, nn float64
	for _, l := range a.Layers() {
		for i, x := range a.Get(l) {
			y := b.Get(l)[i]
			for j, v := range x.Data() {
				dot += float64(v) * float64(y.Data()[j])
				nn += float64(v) * float64(v)
			}
		}
	}
	if got := a.Dot(b); math.Abs(got-dot) > 1e-3 {
		t.Errorf("Dot %v want %v", got, dot)
	}
	if got := a.Norm(); math.Abs(got-math.Sqrt(nn)) > 1e-3 {
		t.Errorf("Norm %v want %v", got, math.Sqrt(nn))
	}
	c := a.Clone()
	c.Axpy(2, b).ScaleInPlace(0.5)
	if !c.ApproxEqual(a.Scale(0.5).Add(b), 1e-5) {
		t.Error("Axpy/ScaleInPlace")
	}
	c.CopyFrom(a)
	if !c.ApproxEqual(a, 0) {
		t.Error("CopyFrom")
	}
	other := NewWeightCollection()
	other.Set("conv1", New(20, 1, 5, 5))
	if a.Compatible(other) == nil || a.ApproxEqual(other, 1) {
		t.Error("incompatible collections must be reported")
	}
	if err := Try(func() { a.Add(other) }); !errors.Is(err, ErrShape) {
		t.Errorf("Add of incompatible: %v", err)
	}
	if Average() != nil {
		t.Error("Average of nothing")
	}
}

func TestWeightCollectionEncoding(t *testing.T) {
	a := lenetLike(3)
	a.Set("empty")
	a.Set("scalar", New())
	buf, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(buf) != a.EncodedSize() {
		t.Fatalf("EncodedSize %d, encoding %d", a.EncodedSize(), len(buf))
	}
	var b WeightCollection
	if err := b.UnmarshalBinary(buf); err != nil {
		t.Fatal(err)
	}
	if !b.ApproxEqual(a, 0) || b.Len() != a.Len() {
		t.Fatal("round trip changed the collection")
	}
	again, _ := b.MarshalBinary()
	if !bytes.Equal(again, buf) {
		t.Fatal("encoding is not deterministic")
	}
	// every truncation is an error, never a panic
	for n := 0; n < len(buf); n += 1 + n/7 {
		if _, err := DecodeWeightCollection(buf[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if _, err := DecodeWeightCollection(append(buf, 0)); err == nil {
		t.Fatal("trailing byte accepted")
	}
	bad := append([]byte(nil), buf...)
	bad[5] = 0xff // layer count varint now huge
	if _, err := DecodeWeightCollection(bad); err == nil {
		t.Fatal("huge layer count accepted")
	}
}

func FuzzDecodeWeightCollection(f *testing.F) {
	small := NewWeightCollection()
	small.Set("a", FromValues(1, 2, 3))
	small.Set("b", New(2, 0), FromValues(4).Reshape(1, 1))
	buf, _ := small.MarshalBinary()
	f.Add(buf)
	f.Add([]byte("SNWC\x01\x01\x01a\x01\x02\xff\xff\xff\xff\x0f\x01"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := DecodeWeightCollection(data)
		if err != nil {
			return
		}
		out, err := w.MarshalBinary()
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("decoded collection does not re-encode to its input")
		}
	})
}
