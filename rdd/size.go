package rdd

import (
	"reflect"
	"sync"
	"unsafe"
)

// Sizer is implemented by values that know how many bytes of memory they
// hold. Status reports ask cached elements and store values for their
// size; values without a SizeBytes method are measured by walking them.
type Sizer interface {
	SizeBytes() int64
}

// sizeBudget bounds the objects one estimate visits, so that a huge
// value costs a bounded time; what lies beyond is not counted.
const sizeBudget = 1 << 20

// sampleAbove is the length above which the elements of a slice of
// pointerful values are sampled instead of all visited.
const sampleAbove = 256

// estimateSize returns the approximate number of bytes v holds: the
// value itself and everything it reaches through pointers, slices, maps,
// strings and interfaces, each counted once. Long slices of values with
// pointers are sampled and their total extrapolated.
func estimateSize(v any) int64 { return estimateSizeExcept(v, nil) }

// estimateSizeExcept is estimateSize, not counting the memory at the
// addresses in except, nor what it refers to.
func estimateSizeExcept(v any, except []uintptr) int64 {
	if v == nil {
		return 0
	}
	if s, ok := v.(Sizer); ok {
		return s.SizeBytes()
	}
	e := sizer{seen: make(map[uintptr]bool, len(except))}
	for _, p := range except {
		e.seen[p] = true
	}
	rv := reflect.ValueOf(v)
	return int64(rv.Type().Size()) + e.reach(rv)
}

type sizer struct {
	seen   map[uintptr]bool
	visits int
}

// once reports whether memory at p is being visited for the first time.
func (e *sizer) once(p uintptr) bool {
	if p == 0 || e.seen[p] || e.visits >= sizeBudget {
		return false
	}
	e.seen[p] = true
	e.visits++
	return true
}

// reach returns the bytes v refers to beyond its own inline size.
func (e *sizer) reach(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !e.once(v.Pointer()) {
			return 0
		}
		el := v.Elem()
		return int64(el.Type().Size()) + e.reach(el)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		el := v.Elem()
		n := e.reach(el)
		if el.Kind() != reflect.Pointer {
			n += int64(el.Type().Size()) // boxed
		}
		return n
	case reflect.String:
		if v.Len() == 0 || !e.once(uintptr(unsafe.Pointer(unsafe.StringData(v.String())))) {
			return 0
		}
		return int64(v.Len())
	case reflect.Slice:
		if v.Cap() == 0 || !e.once(v.Pointer()) {
			return 0
		}
		elem := v.Type().Elem()
		n := int64(v.Cap()) * int64(elem.Size())
		if !hasPointers(elem) {
			return n
		}
		l := v.Len()
		if l <= sampleAbove {
			for i := 0; i < l; i++ {
				n += e.reach(v.Index(i))
			}
			return n
		}
		var s int64
		const samples = 64
		for k := 0; k < samples; k++ {
			s += e.reach(v.Index(k * (l - 1) / (samples - 1)))
		}
		return n + s*int64(l)/samples
	case reflect.Array:
		if !hasPointers(v.Type().Elem()) {
			return 0
		}
		var n int64
		for i := 0; i < v.Len(); i++ {
			n += e.reach(v.Index(i))
		}
		return n
	case reflect.Struct:
		var n int64
		for i := 0; i < v.NumField(); i++ {
			if hasPointers(v.Field(i).Type()) {
				n += e.reach(v.Field(i))
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() || !e.once(v.Pointer()) {
			return 0
		}
		kt, vt := v.Type().Key(), v.Type().Elem()
		// Buckets hold keys, values and a byte of hash per entry.
		n := int64(v.Len()) * (int64(kt.Size()) + int64(vt.Size()) + 1)
		if hasPointers(kt) || hasPointers(vt) {
			it := v.MapRange()
			for it.Next() && e.visits < sizeBudget {
				n += e.reach(it.Key()) + e.reach(it.Value())
			}
		}
		return n
	}
	// Numbers, bools, funcs, channels and unsafe pointers: nothing
	// beyond the value is counted.
	return 0
}

// pointerful caches hasPointers by type.
var pointerful sync.Map // reflect.Type → bool

// hasPointers reports whether values of t can refer to other memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.String, reflect.Slice, reflect.Map:
		return true
	case reflect.Array, reflect.Struct:
		if v, ok := pointerful.Load(t); ok {
			return v.(bool)
		}
		p := typeHasPointers(t)
		pointerful.Store(t, p)
		return p
	}
	return false
}

func typeHasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.String, reflect.Slice, reflect.Map:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// blockMemory lists the addresses of a partition's memory: the sample
// set and its arrays, or the element list.
func blockMemory(b block) []uintptr {
	var out []uintptr
	if s := b.Samples; s != nil {
		out = append(out, uintptr(unsafe.Pointer(s)))
		for _, p := range []uintptr{sliceData(s.Pixels), sliceData(s.Floats), sliceData(s.Labels)} {
			if p != 0 {
				out = append(out, p)
			}
		}
		return out
	}
	if p := sliceData(b.Elems); p != 0 {
		out = append(out, p)
	}
	return out
}

func sliceData[T any](s []T) uintptr {
	if cap(s) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(s)))
}

// cachedMemory lists the memory of the worker's cached partitions.
func (w *worker) cachedMemory() []uintptr {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []uintptr
	for _, e := range w.cache {
		select {
		case <-e.done:
			if e.err == nil {
				out = append(out, blockMemory(e.b)...)
			}
		default:
		}
	}
	return out
}

// blockBytes estimates the memory of a computed partition.
func blockBytes(b block) int64 {
	if s := b.Samples; s != nil {
		n := int64(len(s.Pixels)) + 4*int64(len(s.Floats)) + 4*int64(len(s.Labels))
		for _, c := range s.Classes {
			n += int64(len(c))
		}
		return n
	}
	return estimateSize(b.Elems)
}
