// Package cpuprofile records the CPU profile of a stretch of work
// (runtime/pprof's, which samples every thread's CPU time at 100 Hz) and
// reads back its samples as call stacks of function names, so that a
// program can say where its own time went without an external tool.
package cpuprofile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"

	"google.golang.org/protobuf/encoding/protowire"
)

// Sample is one call stack of a profile and how many times it was
// sampled.
type Sample struct {
	// Stack is the function names, the innermost first; a call inlined
	// into another is listed as its own function.
	Stack []string
	Count int64
}

// Record runs work under a CPU profile of the whole process and returns
// the profile's samples. It fails if a CPU profile is already being
// recorded.
func Record(work func() error) ([]Sample, error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	err := work()
	pprof.StopCPUProfile()
	if err != nil {
		return nil, err
	}
	return Parse(buf.Bytes())
}

// Parse reads the samples of a CPU profile in pprof's format (a gzipped
// profile.proto message, as runtime/pprof writes it). The count of a
// sample is its first value (runtime/pprof's "samples").
func Parse(data []byte) ([]Sample, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	var (
		strs    []string
		funcs   = map[uint64]int64{}    // function id → name's string index
		locs    = map[uint64][]uint64{} // location id → function ids, innermost first
		samples []rawSample
	)
	// profile.proto: Profile.sample 2, location 4, function 5, string_table 6.
	err := fields(data, func(num protowire.Number, v []byte, _ uint64) error {
		switch num {
		case 2:
			s, err := parseSample(v)
			samples = append(samples, s)
			return err
		case 4:
			id, fns, err := parseLocation(v)
			locs[id] = fns
			return err
		case 5:
			id, name, err := parseFunction(v)
			funcs[id] = name
			return err
		case 6:
			strs = append(strs, string(v))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	name := func(fn uint64) string {
		if i, ok := funcs[fn]; ok && i >= 0 && i < int64(len(strs)) {
			return strs[i]
		}
		return "?"
	}
	out := make([]Sample, 0, len(samples))
	for _, s := range samples {
		var stack []string
		for _, l := range s.locs {
			for _, fn := range locs[l] {
				stack = append(stack, name(fn))
			}
		}
		out = append(out, Sample{Stack: stack, Count: s.count})
	}
	return out, nil
}

type rawSample struct {
	locs  []uint64
	count int64
}

var errTruncated = errors.New("cpu profile: truncated or malformed message")

// fields calls fn for every field of the message in b: its number, its
// bytes if length-delimited, its value if a varint (other wire types are
// skipped).
func fields(b []byte, fn func(num protowire.Number, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errTruncated
		}
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errTruncated
			}
			if err := fn(num, v, 0); err != nil {
				return err
			}
			b = b[n:]
		case protowire.VarintType:
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return errTruncated
			}
			if err := fn(num, nil, x); err != nil {
				return err
			}
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return errTruncated
			}
			b = b[n:]
		}
	}
	return nil
}

// varints appends the values of a repeated varint field, packed (v) or
// not (x).
func varints(dst []uint64, v []byte, x uint64) ([]uint64, error) {
	if v == nil {
		return append(dst, x), nil
	}
	for len(v) > 0 {
		x, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return dst, errTruncated
		}
		dst, v = append(dst, x), v[n:]
	}
	return dst, nil
}

// parseSample reads a Sample: location_id 1, value 2.
func parseSample(b []byte) (rawSample, error) {
	var s rawSample
	var vals []uint64
	err := fields(b, func(num protowire.Number, v []byte, x uint64) (err error) {
		switch num {
		case 1:
			s.locs, err = varints(s.locs, v, x)
		case 2:
			vals, err = varints(vals, v, x)
		}
		return err
	})
	if len(vals) > 0 {
		s.count = int64(vals[0])
	}
	return s, err
}

// parseLocation reads a Location: id 1, line 4 (Line: function_id 1).
func parseLocation(b []byte) (id uint64, fns []uint64, err error) {
	err = fields(b, func(num protowire.Number, v []byte, x uint64) error {
		switch num {
		case 1:
			id = x
		case 4:
			return fields(v, func(num protowire.Number, _ []byte, x uint64) error {
				if num == 1 {
					fns = append(fns, x)
				}
				return nil
			})
		}
		return nil
	})
	return id, fns, err
}

// parseFunction reads a Function: id 1, name 2 (a string table index).
func parseFunction(b []byte) (id uint64, name int64, err error) {
	name = -1
	err = fields(b, func(num protowire.Number, _ []byte, x uint64) error {
		switch num {
		case 1:
			id = x
		case 2:
			name = int64(x)
		}
		return nil
	})
	return id, name, err
}
